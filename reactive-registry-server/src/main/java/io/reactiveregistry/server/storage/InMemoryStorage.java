package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/** {@code --in-memory}: durable changes are kept by the core alone; nothing is written or restored. */
final class InMemoryStorage implements Storage {
  private static final Restored NOTHING = new Restored(List.of(), 0, Duration.ZERO);

  @Override
  public CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision) {
    return IN_MEMORY.append(writeId, changes, revision);
  }

  @Override
  public CompletableFuture<Void> barrier() {
    return IN_MEMORY.barrier();
  }

  @Override
  public void checkWritable() {
    IN_MEMORY.checkWritable();
  }

  @Override
  public Mono<Restored> restored(Duration timeout) {
    return Mono.just(NOTHING);
  }

  @Override
  public void follow(CommittedEntries follower, BiConsumer<List<DurableChange>, Long> restore) {
    // nothing is committed anywhere else: no one to follow
  }

  @Override
  public boolean leading() {
    return true;
  }

  @Override
  public @Nullable String failureDescription() {
    return null;
  }

  @Override
  public String state() {
    return "IN_MEMORY";
  }

  @Override
  public int notDurable() {
    return 0;
  }

  @Override
  public void onDurable(LongConsumer latencyNanos) {
    // nothing waits for a disk
  }

  @Override
  public void close() {
    // nothing to let go of
  }
}
