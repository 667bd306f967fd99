package io.reactiveregistry.server.push;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The thread a subscriber's events are written from (its connection's event loop), which runs a
 * drain at once or, to coalesce a burst of changes into one frame, a little later.
 */
public interface DrainLoop extends Executor {
  /** Runs {@code task} on this loop after {@code delayNanos}. */
  void schedule(Runnable task, long delayNanos);

  /**
   * True while the subscriber's connection has more waiting to be written than it should: its
   * events are then held back, and the drain tried again shortly.
   */
  default boolean congested() {
    return false;
  }

  /** Whether the calling thread is this loop's own. */
  default boolean inLoop() {
    return false;
  }

  /**
   * The thread behind the loop, as a key: the subscribers of a change whose loops share one are
   * drained by one task there (see {@link SubscriberQueue#wakeAll}).
   */
  default Object thread() {
    return this;
  }

  /** An event loop, or any scheduled executor, as a drain loop. */
  static DrainLoop of(ScheduledExecutorService loop) {
    return new DrainLoop() {
      @Override
      public void execute(Runnable task) {
        loop.execute(task);
      }

      @Override
      public void schedule(Runnable task, long delayNanos) {
        loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      }

      @Override
      public Object thread() {
        return loop;
      }
    };
  }
}
