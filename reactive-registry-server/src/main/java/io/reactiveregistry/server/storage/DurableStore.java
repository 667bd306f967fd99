package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.TraceContext;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Where the core's durable changes go. {@link #append} and {@link #barrier} are called under the
 * runtime's monitor, often on an event loop: they only enqueue, never block.
 */
public interface DurableStore {

  /**
   * Completes once this node has applied every change the cluster had committed when it was
   * called (Raft's read index, asked of the leader): a read after it is linearizable. At once on
   * a single server, which commits everything itself; exceptionally when no leader answers in time.
   */
  default CompletableFuture<Void> catchUp() {
    return CompletableFuture.completedFuture(null);
  }

  /**
   * A backup file ({@link BackupFile}) of every committed durable value, as committed when it was
   * called (a member catches up first). Exceptionally when nothing is durable here.
   */
  default CompletableFuture<byte[]> backup() {
    return CompletableFuture.failedFuture(new UnsupportedOperationException(
        "this server keeps durable state in memory only (--in-memory): there is nothing on disk to back up"));
  }

  /**
   * Adds a member to the cluster (or moves one to a new address), completing with the members once
   * the change is committed. Exceptionally on a server that is not a cluster member.
   */
  default CompletableFuture<List<ClusterConfig.Member>> addMember(ClusterConfig.Member member) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException(
        "this server is not a cluster member: it has no members to change"));
  }

  /** Removes a member from the cluster, completing with the members once the change is committed. */
  default CompletableFuture<List<ClusterConfig.Member>> removeMember(String id) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException(
        "this server is not a cluster member: it has no members to change"));
  }

  /**
   * Queues changes to be written after every change queued before them. The future completes
   * once they are durable (committed), or exceptionally if they cannot be made durable.
   *
   * @param writeId the caller's increasing id of this write, reported back by {@link CommittedEntries}
   * @param revision the core's revision after these changes; revisions continue from it after a restart
   */
  CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision);

  /**
   * {@link #append(long, List, long)} of a traced command: a store whose log other members follow
   * writes the trace with the changes, so that their applying it is part of the trace.
   */
  default CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision,
      @Nullable TraceContext trace) {
    return append(writeId, changes, revision);
  }

  /** {@link #append(long, List, long)} of a write nobody follows (id 0): a reservation of revisions, say. */
  default CompletableFuture<Void> append(List<DurableChange> changes, long revision) {
    return append(0, changes, revision);
  }

  /** Completes once everything appended so far is durable. */
  CompletableFuture<Void> barrier();

  /**
   * Throws {@link StorageUnavailableException} when a change now could not be made durable: too
   * many changes waiting, or storage has failed. Called before a command changes anything.
   */
  void checkWritable();

  /**
   * True when other members write to the same log: a write that fails is then not a failure of
   * storage (another member may have the majority), and what this node applied of it must be put
   * back to what is committed ({@link #committedValues}).
   */
  default boolean replicated() {
    return false;
  }

  /** The committed value of each subject that has one (a subject without one has been removed). */
  default List<DurableChange> committedValues(Collection<DurableChange.Subject> subjects) {
    return List.of();
  }

  /** For embedding and tests: nothing is written, every change counts as durable at once. */
  DurableStore IN_MEMORY = new DurableStore() {
    private final CompletableFuture<Void> done = CompletableFuture.completedFuture(null);

    @Override
    public CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision) {
      return done;
    }

    @Override
    public CompletableFuture<Void> barrier() {
      return done;
    }

    @Override
    public void checkWritable() {}
  };
}
