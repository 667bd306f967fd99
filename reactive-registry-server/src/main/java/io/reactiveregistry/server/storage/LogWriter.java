package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.TraceContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Schedulers;

/**
 * The one thread that hands durable changes to the log. Callers (under the runtime's monitor,
 * often on an event loop) only enqueue and wake it; it takes everything waiting, up to a bound,
 * and writes it as one log entry, then completes each caller's future when that entry commits.
 * One queue and one thread keep the log in the order the core decided; taking what waits as one
 * entry makes concurrent writers share an fsync, on top of Ratis's own batching of syncs.
 */
final class LogWriter {
  /** Changes in one log entry at most: bounds an entry's size (a change is at most a few KB). */
  private static final int MAX_CHANGES_PER_ENTRY = 1_000;
  /** Completes commands' futures in commit order, off the thread that commits entries. */
  private static final Executor ACKNOWLEDGER = task -> Schedulers.single().schedule(task);

  /** One command's changes, waiting to be written. */
  private record Pending(long writeId, List<DurableChange> changes, long revision, @Nullable TraceContext trace,
      CompletableFuture<Void> durable, long queuedAtNanos) {}

  private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger notDurable = new AtomicInteger();
  private final Function<byte[], CompletableFuture<Void>> write;
  private final String origin;
  private final Duration oneAtATime;
  private final Thread thread;
  private volatile CompletableFuture<Void> lastAppended = CompletableFuture.completedFuture(null);
  private volatile boolean closed;
  private volatile LongConsumer durableAfterNanos = nanos -> {};

  /**
   * @param write submits an encoded entry and completes when it is committed; it may block
   * @param origin written in every entry, so that this process knows its own entries when applied
   */
  LogWriter(Function<byte[], CompletableFuture<Void>> write, String origin) {
    this(write, origin, null);
  }

  /**
   * @param oneAtATime when not null, each entry waits (at most this long) for the one before it
   *     to commit, and everything queued meanwhile goes into the next entry: for a cluster, where
   *     an entry costs a round trip to the other members, so that many commands share one
   */
  LogWriter(Function<byte[], CompletableFuture<Void>> write, String origin, Duration oneAtATime) {
    this.write = write;
    this.origin = origin;
    this.oneAtATime = oneAtATime;
    this.thread = new Thread(this::run, "registry-log-writer");
    this.thread.setDaemon(true);
  }

  /** Told, for each command made durable, how long it waited from being queued to its commit. */
  void onDurable(LongConsumer latencyNanos) {
    this.durableAfterNanos = latencyNanos;
  }

  void start() {
    thread.start();
  }

  /** Queues one command's changes. Calls are serialized by the caller (the runtime's monitor). */
  CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision) {
    return append(writeId, changes, revision, null);
  }

  /** {@link #append(long, List, long)} of a traced command: its changes are written with its trace. */
  CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision,
      @Nullable TraceContext trace) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new StorageUnavailableException("storage is closed: the server is stopping", false, null));
    }
    Pending pending = new Pending(writeId, changes, revision, trace, new CompletableFuture<>(), System.nanoTime());
    notDurable.incrementAndGet();
    lastAppended = pending.durable;
    queue.offer(pending);
    LockSupport.unpark(thread);
    return pending.durable;
  }

  /** Completes once everything appended so far is durable: entries commit in log order. */
  CompletableFuture<Void> barrier() {
    return lastAppended;
  }

  /** Commands appended whose changes are not yet durable. */
  int notDurable() {
    return notDurable.get();
  }

  /** Stops taking changes, writes what is queued, and waits for the thread to finish (blocking). */
  void close() throws InterruptedException {
    closed = true;
    LockSupport.unpark(thread);
    thread.join(10_000);
  }

  private void run() {
    while (true) {
      List<Pending> batch = take();
      if (batch.isEmpty()) {
        if (closed) {
          return;
        }
        LockSupport.park(this); // append() unparks after offering, so a wake-up is never lost
        continue;
      }
      List<DurableChange> changes = new ArrayList<>();
      List<TraceContext> traces = traces(batch);
      long revision = 0;
      long firstWrite = Long.MAX_VALUE;
      long lastWrite = 0;
      for (Pending pending : batch) {
        changes.addAll(pending.changes);
        revision = Math.max(revision, pending.revision);
        if (pending.writeId != 0) { // ids increase in queue order; 0 is a write nobody follows
          firstWrite = Math.min(firstWrite, pending.writeId);
          lastWrite = Math.max(lastWrite, pending.writeId);
        }
      }
      CompletableFuture<Void> committed;
      try {
        committed = write.apply(ChangeCodec.encodeEntry(changes, traces, revision, origin,
            lastWrite == 0 ? 0 : firstWrite, lastWrite));
      } catch (RuntimeException e) {
        committed = CompletableFuture.failedFuture(e);
      }
      if (oneAtATime != null) {
        awaitQuietly(committed, oneAtATime);
      }
      // Answering a command (encoding it, handing it to its connection) runs in its future's
      // callbacks: they run on one ordered thread of ours, not on the log's apply thread.
      committed.whenCompleteAsync((ignored, error) -> {
        long now = System.nanoTime();
        for (Pending pending : batch) {
          notDurable.decrementAndGet();
          if (error == null) {
            durableAfterNanos.accept(now - pending.queuedAtNanos);
            pending.durable.complete(null);
          } else {
            pending.durable.completeExceptionally(error);
          }
        }
      }, ACKNOWLEDGER);
    }
  }

  private static void awaitQuietly(CompletableFuture<Void> committed, Duration limit) {
    try {
      committed.get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // the entry's own future reports it; the next entry goes out regardless
    }
  }

  /** Each change's trace, in order; empty when no command of the batch was traced (most entries). */
  private static List<TraceContext> traces(List<Pending> batch) {
    if (batch.stream().allMatch(pending -> pending.trace == null)) {
      return List.of();
    }
    List<TraceContext> traces = new ArrayList<>();
    for (Pending pending : batch) {
      for (int i = 0; i < pending.changes.size(); i++) {
        traces.add(pending.trace);
      }
    }
    return traces;
  }

  private List<Pending> take() {
    List<Pending> batch = new ArrayList<>();
    int changes = 0;
    Pending next;
    while (changes < MAX_CHANGES_PER_ENTRY && (next = queue.poll()) != null) {
      batch.add(next);
      changes += next.changes.size();
    }
    return batch;
  }
}
