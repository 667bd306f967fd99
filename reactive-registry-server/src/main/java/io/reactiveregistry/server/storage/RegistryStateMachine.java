package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.TraceContext;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine: applies committed entries to {@link DurableState}, writes it as a
 * snapshot when Ratis asks (so the log can be purged), and loads the latest snapshot at start,
 * after which Ratis replays the entries that follow it.
 *
 * <p>The running core has already applied what this server wrote (it decided those changes), so
 * applying those here only keeps the durable copy that snapshots and restarts read; entries other
 * members of a cluster wrote are also handed to the core, through the {@link CommittedEntries}
 * following the log.
 */
final class RegistryStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(RegistryStateMachine.class);

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final DurableState state = new DurableState();
  private final Consumer<Throwable> onLogFailed;
  private final Consumer<String> onLeaderChanged;
  /** Names this process's entries: a member's id and a nonce of this start. */
  private final String origin;
  private final Consumer<List<RaftPeer>> onMembership;
  private CommittedEntries follower;
  /** A backup to start from when the log is new ({@code --restore-from}); null otherwise. */
  private final BackupFile.Contents seed;
  /** Consistent reads waiting for this member to apply an index, by index (guarded by this). */
  private final TreeMap<Long, List<CompletableFuture<Void>>> appliedWaiters = new TreeMap<>();
  /** Writes snapshots off Ratis's apply thread (see {@link #takeSnapshot}). */
  private final Executor snapshotWriter;
  /** The thread behind {@code snapshotWriter} when this state machine made it; null when given one. */
  private final @Nullable ExecutorService ownSnapshotWriter;
  /** The snapshot being written; read and replaced on Ratis's apply thread only. */
  private CompletableFuture<Void> writing = CompletableFuture.completedFuture(null);
  /** The newest snapshot index takeSnapshot returned to Ratis. */
  private long handedOver = -1;

  /**
   * @param origin what this process writes in its entries, to know them again when applied
   * @param onLogFailed told when Ratis could not write the log (a full or broken disk)
   * @param onLeaderChanged told the new leader's id (null while there is none)
   */
  RegistryStateMachine(String origin, Consumer<Throwable> onLogFailed, Consumer<String> onLeaderChanged) {
    this(origin, onLogFailed, onLeaderChanged, null, peers -> { });
  }

  /**
   * @param seed a backup to start from, written as this new log's first snapshot
   * @param onMembership told each membership the group commits (its members' peers)
   */
  RegistryStateMachine(String origin, Consumer<Throwable> onLogFailed, Consumer<String> onLeaderChanged,
      BackupFile.Contents seed, Consumer<List<RaftPeer>> onMembership) {
    this(origin, onLogFailed, onLeaderChanged, seed, onMembership, null);
  }

  /** As above; {@code snapshotWriter} writes the snapshots (null: a thread of this state machine's own). */
  RegistryStateMachine(String origin, Consumer<Throwable> onLogFailed, Consumer<String> onLeaderChanged,
      BackupFile.Contents seed, Consumer<List<RaftPeer>> onMembership, @Nullable Executor snapshotWriter) {
    this.ownSnapshotWriter = snapshotWriter != null ? null : Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, "registry-snapshot-writer");
      thread.setDaemon(true);
      return thread;
    });
    this.snapshotWriter = snapshotWriter != null ? snapshotWriter : ownSnapshotWriter;
    this.seed = seed;
    this.onMembership = onMembership;
    this.origin = origin;
    this.onLogFailed = onLogFailed;
    this.onLeaderChanged = onLeaderChanged;
  }

  /** The group committed a new membership (a member added, removed or moved online). */
  @Override
  public void notifyConfigurationChanged(long term, long index, RaftConfigurationProto configuration) {
    onMembership.accept(configuration.getPeersList().stream()
        .map(peer -> RaftPeer.newBuilder().setId(peer.getId().toStringUtf8()).setAddress(peer.getAddress())
            .setDataStreamAddress(peer.getDataStreamAddress().isEmpty() ? null : peer.getDataStreamAddress())
            .build())
        .toList());
  }

  DurableState state() {
    return state;
  }

  /**
   * A read-only request, answered by the leader once it has confirmed it still leads and applied
   * its commit index as of the request (Ratis's read index): the index applied, which a member
   * waits to have applied itself before a consistent read ({@link #applied}).
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    TermIndex last = getLastAppliedTermIndex();
    long index = last == null ? 0 : last.getIndex();
    return CompletableFuture.completedFuture(Message.valueOf(
        UnsafeByteOperations.unsafeWrap(ByteBuffer.allocate(Long.BYTES).putLong(0, index))));
  }

  /** The index a {@link #query} answered. */
  static long appliedIndexOf(Message answer) {
    return answer.getContent().asReadOnlyByteBuffer().getLong();
  }

  /** Completes once this member has applied the log up to {@code index}. */
  CompletableFuture<Void> applied(long index) {
    synchronized (this) {
      TermIndex last = getLastAppliedTermIndex();
      if (last != null && last.getIndex() >= index) {
        return CompletableFuture.completedFuture(null);
      }
      CompletableFuture<Void> waiter = new CompletableFuture<>();
      appliedWaiters.computeIfAbsent(index, i -> new ArrayList<>()).add(waiter);
      return waiter;
    }
  }

  /** Takes the waiters for {@code index} and below; completed by the caller outside the lock. */
  private List<CompletableFuture<Void>> reached(long index) {
    if (appliedWaiters.isEmpty()) {
      return List.of();
    }
    List<CompletableFuture<Void>> done = new ArrayList<>();
    var upTo = appliedWaiters.headMap(index, true);
    upTo.values().forEach(done::addAll);
    upTo.clear();
    return done;
  }

  /** Entries that are not the registry's (a new leader's first entry, configurations) count as applied too. */
  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    List<CompletableFuture<Void>> done;
    synchronized (this) {
      super.notifyTermIndexUpdated(term, index);
      done = reached(index);
    }
    done.forEach(waiter -> waiter.complete(null));
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    // RUNNING from here on: installing a snapshot from the leader pauses this state machine and
    // Ratis checks that it did (see pause()).
    getLifeCycle().startAndTransition(() -> {
      super.initialize(server, groupId, raftStorage);
      storage.init(raftStorage);
      if (seed != null && storage.getLatestSnapshot() == null) {
        seed();
      }
      loadLatestSnapshot(storage.getLatestSnapshot());
    }, IOException.class);
  }

  /**
   * Called before a snapshot installed from the leader replaces the state (a new member, or one
   * that missed more than the leader's log keeps); {@link #reinitialize} loads it. Ratis reloads
   * only a state machine that says it paused.
   */
  @Override
  public synchronized void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /**
   * Writes the backup as the snapshot at index 0 of a new log: Ratis then starts the log after it,
   * and every member seeded with the same file starts from the same state (a member that is not
   * is sent the snapshot by the leader, as a member far behind is).
   */
  private void seed() throws IOException {
    state.replace(seed.values(), seed.revision());
    setLastAppliedTermIndex(TermIndex.valueOf(0, 0));
    writeSnapshot(TermIndex.valueOf(0, 0), state.copy());
    log.info("restored {} durable values at revision {} from a backup", seed.values().size(), seed.revision());
  }

  /** Every value, its revision and the log index it is at, read together (no entry is applied meanwhile). */
  synchronized Backup backup() {
    TermIndex last = getLastAppliedTermIndex();
    DurableState.Copy copy = state.copy();
    return new Backup(copy.values(), copy.revision(), last == null ? -1 : last.getIndex());
  }

  record Backup(List<DurableChange> values, long revision, long index) {}

  /** Called when this member installed a snapshot from the leader (it was too far behind for the log). */
  @Override
  public void reinitialize() throws IOException {
    List<CompletableFuture<Void>> done;
    synchronized (this) {
      loadLatestSnapshot(storage.loadLatestSnapshot());
      if (getLifeCycleState() == LifeCycle.State.PAUSED) {
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
      }
      if (follower != null) {
        follower.replaced(state.values());
      }
      TermIndex last = getLastAppliedTermIndex();
      done = last == null ? List.of() : reached(last.getIndex());
    }
    done.forEach(waiter -> waiter.complete(null));
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  /**
   * Hands the state as it is now to {@code restore}, then tells {@code follower} of every entry
   * applied after it: nothing falls between the two.
   */
  synchronized void follow(CommittedEntries follower, Consumer<DurableState> restore) {
    restore.accept(state);
    this.follower = follower;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext transaction) {
    LogEntryProto entry = transaction.getLogEntry();
    ChangeCodec.Entry decoded = ChangeCodec.decodeEntry(entry.getStateMachineLogEntry().getLogData().newInput());
    List<DurableChange> changes = decoded.changes().stream().map(ChangeCodec::change).toList();
    List<TraceContext> traces = traces(decoded.changes());
    List<CompletableFuture<Void>> done;
    synchronized (this) {
      state.apply(changes, decoded.revision());
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      if (follower != null) {
        boolean own = origin.equals(decoded.origin());
        follower.committed(changes, traces, own, own ? decoded.firstWrite() : 0, own ? decoded.lastWrite() : 0);
      }
      done = reached(entry.getIndex());
    }
    done.forEach(waiter -> waiter.complete(null));
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  /** Each change's trace, or none: see {@link CommittedEntries#committed}. */
  private static List<TraceContext> traces(List<ChangeCodec.StoredChange> stored) {
    if (stored.stream().allMatch(change -> change.traceparent() == null)) {
      return List.of();
    }
    List<TraceContext> traces = new ArrayList<>(stored.size());
    stored.forEach(change -> traces.add(change.trace()));
    return traces;
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    onLeaderChanged.accept(newLeaderId == null ? null : newLeaderId.toString());
  }

  /**
   * Starts writing the state as of the last applied entry, and returns the index of the newest
   * snapshot already complete (Ratis purges the log up to it; -1 while there is none). Ratis calls
   * this on its apply thread, which applies nothing until it returns: writing there paused every
   * write's commit for the whole snapshot (600 ms for 86,000 values on two cores, and in
   * proportion beyond), so only the copy of the values is taken there, and a thread of its own
   * encodes and forces it. Ratis asks again with each applied batch while the log is longer than
   * the threshold: told of the snapshot once it is complete, it purges the log and stops asking.
   * Written to a temporary file, forced, then renamed: a crash leaves either the old snapshot or
   * the new one, never half of one, and the log still holds everything after the old one.
   */
  @Override
  public long takeSnapshot() {
    TermIndex last = getLastAppliedTermIndex();
    if (last == null || last.getIndex() < 0) {
      return -1;
    }
    long complete = newestSnapshotIndex();
    if (!writing.isDone() || complete > handedOver) {
      handedOver = Math.max(handedOver, complete);
      return complete;
    }
    DurableState.Copy copy = state.copy();
    writing = CompletableFuture.runAsync(() -> {
      try {
        writeSnapshot(last, copy);
      } catch (IOException | RuntimeException e) {
        log.error("the snapshot at log index {} was not written; the log keeps the entries since the last one, "
            + "and the next is tried after the next applied entry", last.getIndex(), e);
      }
    }, snapshotWriter);
    return complete;
  }

  private long newestSnapshotIndex() {
    SingleFileSnapshotInfo newest = storage.getLatestSnapshot();
    return newest == null ? -1 : newest.getIndex();
  }

  /** Waits for a snapshot being written (a stop's), then lets its thread go. */
  @Override
  public void close() throws IOException {
    try {
      writing.get(1, TimeUnit.MINUTES);
    } catch (TimeoutException e) {
      log.warn("a snapshot was still being written after a minute; the log keeps the entries it would cover");
    } catch (ExecutionException e) {
      log.debug("the last snapshot failed", e); // said when it did
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ownSnapshotWriter != null) {
      ownSnapshotWriter.shutdown();
    }
    super.close();
  }

  private void writeSnapshot(TermIndex last, DurableState.Copy copy) throws IOException {
    long start = System.nanoTime();
    File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    Path temporary = file.toPath().resolveSibling(file.getName() + ".writing");
    DurableState.write(copy, temporary);
    Files.move(temporary, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(file.toPath().getParent()); // the rename itself must be durable before the log is purged
    MD5Hash digest = MD5FileUtil.computeAndSaveMd5ForFile(file);
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), digest), last));
    log.info("snapshot of {} durable values at log index {} written in {} ms", copy.values().size(), last.getIndex(),
        (System.nanoTime() - start) / 1_000_000);
  }

  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    onLogFailed.accept(cause);
  }

  private static void forceDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  private void loadLatestSnapshot(SingleFileSnapshotInfo snapshot) throws IOException {
    if (snapshot == null) {
      return;
    }
    File file = snapshot.getFile().getPath().toFile();
    if (snapshot.getFile().getFileDigest() != null) {
      MD5FileUtil.verifySavedMD5(file, snapshot.getFile().getFileDigest());
    }
    state.readFrom(file.toPath());
    setLastAppliedTermIndex(snapshot.getTermIndex());
    log.info("loaded snapshot of {} durable values at log index {}", state.size(), snapshot.getIndex());
  }
}
