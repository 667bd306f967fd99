package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where the core's durable changes go. {@link #append} and {@link #barrier} are called under the
 * runtime's monitor, often on an event loop: they only enqueue, never block.
 */
public interface DurableStore {

  /**
   * Queues changes to be written after every change queued before them. The future completes
   * once they are durable (committed), or exceptionally if they cannot be made durable.
   *
   * @param revision the core's revision after these changes; revisions continue from it after a restart
   */
  CompletableFuture<Void> append(List<DurableChange> changes, long revision);

  /** Completes once everything appended so far is durable. */
  CompletableFuture<Void> barrier();

  /**
   * Throws {@link StorageUnavailableException} when a change now could not be made durable: too
   * many changes waiting, or storage has failed. Called before a command changes anything.
   */
  void checkWritable();

  /** For embedding and tests: nothing is written, every change counts as durable at once. */
  DurableStore IN_MEMORY = new DurableStore() {
    private final CompletableFuture<Void> done = CompletableFuture.completedFuture(null);

    @Override
    public CompletableFuture<Void> append(List<DurableChange> changes, long revision) {
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
