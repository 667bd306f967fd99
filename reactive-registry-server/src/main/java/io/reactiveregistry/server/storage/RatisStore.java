package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.process.FatalErrors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Durable state on Apache Ratis: a group of one node on local disk. Changes are written through
 * the {@link LogWriter}'s thread into the Raft log (fsync'd before commit) and acknowledged once
 * committed; {@link RegistryStateMachine} snapshots them; at start the snapshot and the log after
 * it are replayed, and {@link #restored} hands the result to the core.
 */
public final class RatisStore implements DurableStore, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RatisStore.class);

  /** Fixed, so that a restart finds its group's directory under the data directory. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes("reactive-registry".getBytes(StandardCharsets.UTF_8)));
  static final RaftPeerId SELF = RaftPeerId.valueOf("registry-1");
  /**
   * A write not committed in this time counts as failed: Ratis leaves a write whose log append
   * failed pending rather than failing it, and a caller must not wait forever. Below the Java
   * client's 10 s request timeout, so that the client reads why rather than timing out; a healthy
   * single node commits in milliseconds.
   */
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(8);

  private final StorageConfig config;
  private final RaftServer server;
  private final RegistryStateMachine stateMachine;
  private final LogWriter writer;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private final long openedAtNanos;
  private final AtomicReference<Throwable> failure;

  /**
   * What was replayed: the latest value of every durable subject, the revision after them, and
   * how long opening and replaying took.
   */
  public record Restored(List<DurableChange> values, long revision, Duration took) {}

  private RatisStore(StorageConfig config, RaftServer server, RegistryStateMachine stateMachine,
      AtomicReference<Throwable> failure, long openedAtNanos) {
    this.config = config;
    this.server = server;
    this.stateMachine = stateMachine;
    this.failure = failure;
    this.writer = new LogWriter(this::write);
    this.openedAtNanos = openedAtNanos;
  }

  /** Opens (or creates) the store in {@code config.dataDir()} and starts Ratis. Blocking: file I/O. */
  public static RatisStore open(StorageConfig config) throws IOException {
    long openedAtNanos = System.nanoTime();
    Files.createDirectories(config.dataDir());
    RaftProperties properties = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(properties, List.of(config.dataDir().toFile()));
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.NETTY);
    // One node: nothing talks to this port yet, so it stays on loopback.
    NettyConfigKeys.Server.setHost(properties, "127.0.0.1");
    NettyConfigKeys.Server.setPort(properties, config.raftPort());
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, config.snapshotEvery());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf("8MB"));
    RaftServerConfigKeys.Write.setElementLimit(properties, config.maxNotDurable() + 1_000);

    RaftPeer self = RaftPeer.newBuilder().setId(SELF).setAddress("127.0.0.1:" + config.raftPort()).build();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    RegistryStateMachine stateMachine = new RegistryStateMachine(cause -> failed(failure, cause));
    RaftServer server = RaftServer.newBuilder()
        .setServerId(SELF)
        .setGroup(RaftGroup.valueOf(GROUP_ID, self))
        .setProperties(properties)
        .setStateMachine(stateMachine)
        .setOption(RaftStorage.StartupOption.RECOVER) // reuse the group's directory; format it only when new
        .build();
    server.start();
    RatisStore store = new RatisStore(config, server, stateMachine, failure, openedAtNanos);
    store.writer.start();
    return store;
  }

  /**
   * Completes once this node leads its group and has applied every committed entry: the state
   * it then holds is everything that was acknowledged before the last stop or crash.
   */
  public Mono<Restored> restored(Duration timeout) {
    // Polled off the event loops and the parallel scheduler: Ratis's accessors may wait on its own locks.
    return Flux.interval(Duration.ZERO, Duration.ofMillis(10), Schedulers.boundedElastic())
        .filter(tick -> caughtUp())
        .next()
        .timeout(timeout, Mono.error(() -> new IllegalStateException(
            "storage in " + config.dataDir() + " was not restored within " + timeout)))
        .map(tick -> new Restored(stateMachine.state().values(), stateMachine.state().revision(),
            Duration.ofNanos(System.nanoTime() - openedAtNanos)));
  }

  private boolean caughtUp() {
    try {
      RaftServer.Division division = server.getDivision(GROUP_ID);
      DivisionInfo info = division.getInfo();
      return info.isLeaderReady() && info.getLastAppliedIndex() >= division.getRaftLog().getLastCommittedIndex();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public CompletableFuture<Void> append(List<DurableChange> changes, long revision) {
    return reportingFailure(writer.append(changes, revision));
  }

  @Override
  public CompletableFuture<Void> barrier() {
    return reportingFailure(writer.barrier());
  }

  /**
   * A write that did not commit means memory may now be ahead of the disk: it is logged once, and
   * from then on durable writes are refused and the server reports itself not ready.
   */
  private CompletableFuture<Void> reportingFailure(CompletableFuture<Void> durable) {
    return durable.handle((ignored, error) -> {
      if (error == null) {
        return null;
      }
      failed(failure, error);
      throw new StorageUnavailableException("storage failed to commit the change, which may not survive a "
          + "restart: " + error.getMessage(), false, error);
    });
  }

  /** Records the first failure, and says so once: from then on durable writes are refused. */
  private static void failed(AtomicReference<Throwable> failure, Throwable cause) {
    FatalErrors.check(cause); // a log worker out of memory: the process ends, if it is set to
    if (failure.compareAndSet(null, cause)) {
      log.error("storage failed: durable writes are refused and the server reports itself not ready until it "
          + "restarts (memory may now be ahead of disk)", cause);
    }
  }

  @Override
  public void checkWritable() {
    Throwable failed = failure.get();
    if (failed != null) {
      throw new StorageUnavailableException("storage has failed (" + failed.getMessage()
          + "); durable writes are refused until the server restarts", false, failed);
    }
    if (writer.notDurable() >= config.maxNotDurable()) {
      throw new StorageUnavailableException("storage is " + writer.notDurable()
          + " changes behind; durable writes are refused until it catches up, retry shortly", true, null);
    }
  }

  /** False once a write has failed; the server then reports itself not ready. */
  public boolean healthy() {
    return failure.get() == null;
  }

  /** What failed, for operators; null while storage is healthy. */
  public String failureDescription() {
    Throwable failed = failure.get();
    return failed == null ? null : String.valueOf(failed.getMessage() != null ? failed.getMessage() : failed);
  }

  /** Told, for each command made durable, how long it waited from being queued to its commit. */
  public void onDurable(LongConsumer latencyNanos) {
    writer.onDurable(latencyNanos);
  }

  /** The Ratis server underneath, for this package's tests (stopping it is how they make the log fail). */
  RaftServer raftServer() {
    return server;
  }

  /** Commands whose changes are not yet durable. */
  public int notDurable() {
    return writer.notDurable();
  }

  /** Writes one encoded entry; runs on the log writer's thread, where blocking is allowed. */
  private CompletableFuture<Void> write(byte[] entry) {
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(SELF)
        .setGroupId(GROUP_ID)
        .setCallId(callIds.incrementAndGet())
        .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry))) // the array is not touched again
        .setType(RaftClientRequest.writeRequestType())
        .build();
    try {
      return server.submitClientRequestAsync(request)
          .orTimeout(COMMIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .thenAccept(RatisStore::checkSuccess);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static void checkSuccess(RaftClientReply reply) {
    if (!reply.isSuccess()) {
      throw new IllegalStateException("the log refused a write", reply.getException());
    }
  }

  /** Writes what is queued, then stops Ratis. Blocking. */
  @Override
  public void close() throws IOException {
    try {
      writer.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.close();
  }
}
