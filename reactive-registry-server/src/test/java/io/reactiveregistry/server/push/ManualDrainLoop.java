package io.reactiveregistry.server.push;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * A drain loop on virtual time: tasks run only when the test says so, in the order they fall due;
 * {@link #nanoTime()} is the clock for {@link Pacing}.
 */
final class ManualDrainLoop implements DrainLoop {
  private record Task(long dueNanos, long order, Runnable task) {}

  private final List<Task> tasks = new ArrayList<>();
  private long now = 1_000_000_000L;
  private long submitted;
  private volatile boolean congested;
  private volatile boolean callerInLoop;

  @Override
  public synchronized void execute(Runnable task) {
    tasks.add(new Task(now, submitted++, task));
  }

  @Override
  public synchronized void schedule(Runnable task, long delayNanos) {
    tasks.add(new Task(now + delayNanos, submitted++, task));
  }

  @Override
  public boolean congested() {
    return congested;
  }

  @Override
  public boolean inLoop() {
    return callerInLoop;
  }

  /** Makes the test's thread count as this loop's own (the thread that made a change is the loop's). */
  void callerInLoop(boolean value) {
    callerInLoop = value;
  }

  /** Makes the connection behind this loop congested (its peer not reading), or clear again. */
  void congested(boolean value) {
    congested = value;
  }

  synchronized long nanoTime() {
    return now;
  }

  /** Tasks waiting, due or not. */
  synchronized int pending() {
    return tasks.size();
  }

  /** Runs the tasks that are due now, including those they submit that are due now too. */
  void runDue() {
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.stream().filter(t -> t.dueNanos() <= now)
            .min(Comparator.comparingLong(Task::dueNanos).thenComparingLong(Task::order)).orElse(null);
        if (next == null) {
          return;
        }
        tasks.remove(next);
      }
      next.task().run();
    }
  }

  /** Moves the clock on, running each task at the time it falls due. */
  void advance(Duration by) {
    long target;
    synchronized (this) {
      target = now + by.toNanos();
    }
    while (true) {
      synchronized (this) {
        OptionalLong next = tasks.stream().mapToLong(Task::dueNanos).filter(due -> due <= target).min();
        if (next.isEmpty()) {
          now = target;
          return;
        }
        now = Math.max(now, next.getAsLong());
      }
      runDue();
    }
  }
}
