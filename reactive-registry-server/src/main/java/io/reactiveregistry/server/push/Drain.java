package io.reactiveregistry.server.push;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.FluxSink;

/**
 * The one way a backlog reaches a stream. Its frames are emitted as far as the stream's demand
 * reaches, by one thread at a time and in order; a drain asked for while one runs makes that one
 * go round once more, so no frame is left waiting for a drain that never comes. A drain runs where
 * its user says: on the calling thread ({@link #run}), or handed off to a loop ({@link #handOff}),
 * once however often it is asked for before it runs.
 *
 * <p>What the backlog holds, how it is bounded and what it collapses into when its reader falls
 * behind stay its user's: a service view's events collapse into a fresh snapshot
 * ({@link SubscriberQueue}), the audit trail's lose their oldest behind one {@code GAP} event
 * ({@code audit.TraceHub}), a peer's claim changes keep the latest per instance
 * ({@code replication.ClaimFeed}).
 */
public final class Drain {
  /** The backlog a drain empties. */
  @FunctionalInterface
  public interface Source {
    /**
     * The next frame to send, or null when none is ready now (or the drain should stop, say
     * because the connection is congested and the source arranged to be drained again). Called
     * only by the one thread draining.
     */
    byte @Nullable [] next();
  }

  private final Source source;
  private final AtomicInteger wip = new AtomicInteger();
  private final AtomicBoolean handedOff = new AtomicBoolean();
  private final Runnable runHandedOff = this::runHandedOff;
  private volatile @Nullable FluxSink<byte[]> sink;

  public Drain(Source source) {
    this.source = source;
  }

  /** Connects the stream: frames go to it from the next drain. */
  public void attach(FluxSink<byte[]> sink) {
    this.sink = sink;
  }

  /** The stream, once attached. */
  public @Nullable FluxSink<byte[]> sink() {
    return sink;
  }

  /** Emits what demand allows, on this thread, or has the drain running elsewhere go round again. */
  public void run() {
    if (wip.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    do {
      FluxSink<byte[]> out = sink;
      if (out != null) {
        while (out.requestedFromDownstream() > 0 && !out.isCancelled()) {
          byte[] frame = source.next();
          if (frame == null) {
            break;
          }
          out.next(frame);
        }
      }
      missed = wip.addAndGet(-missed);
    } while (missed != 0);
  }

  /**
   * Runs a drain on {@code loop}: one task however often this is asked before the task starts; a
   * request after it started hands off another. Nothing when the loop refuses the task (it is
   * shutting down, and what it served with it).
   */
  public void handOff(Executor loop) {
    if (claimHandOff()) {
      try {
        loop.execute(runHandedOff);
      } catch (RejectedExecutionException stopping) {
        releaseHandOff();
      }
    }
  }

  /** The same, run after {@code delayNanos} (a coalescing subscriber's pacing, a congested connection's retry). */
  public void handOff(DrainLoop loop, long delayNanos) {
    if (delayNanos <= 0) {
      handOff(loop);
    } else if (claimHandOff()) {
      try {
        loop.schedule(runHandedOff, delayNanos);
      } catch (RejectedExecutionException stopping) {
        releaseHandOff();
      }
    }
  }

  /**
   * Claims the hand-off for a task of the caller's (one that drains several backlogs in turn, see
   * {@link SubscriberQueue#wakeAll}), which then calls {@link #runHandedOff}; false: one is pending.
   */
  boolean claimHandOff() {
    return handedOff.compareAndSet(false, true);
  }

  /** Whether a handed-off drain is waiting to start; one asked for now would change nothing. */
  boolean handOffPending() {
    return handedOff.get();
  }

  /** Gives back a claimed hand-off whose task will not run. */
  void releaseHandOff() {
    handedOff.set(false);
  }

  /** The handed-off drain: a request from here on hands off another. */
  void runHandedOff() {
    handedOff.set(false);
    run();
  }
}
