package io.reactiveregistry.server.push;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.FluxSink;

/**
 * One subscriber's pending events, emitted only as far as its demand reaches. The backlog is
 * bounded: when it would pass {@code maxPending}, it is dropped and replaced by one fresh snapshot,
 * taken when demand returns. A slow subscriber therefore never costs more than its bound, and
 * never makes a writer wait. A subscriber that asked to coalesce takes what is pending together as
 * one {@link EventBatch}.
 */
public final class SubscriberQueue {
  /** How many subscribers one task of a {@link LoopBatch} drains before it lets its loop do other work. */
  static final int DRAINS_PER_TURN = 256;
  /** How soon a drain held back by a congested connection is tried again. */
  private static final long CONGESTION_RETRY_NANOS = 10_000_000;

  /** Takes a fresh snapshot for a subscriber that fell behind; see {@link #restart}. */
  public interface Resync {
    void resync(SubscriberQueue queue);
  }

  private final ViewChannel channel;
  private final int maxPending;
  private final Resync resync;
  private final PushObserver pushed;
  private final ArrayDeque<OutboundEvent> pending = new ArrayDeque<>();
  private boolean needsResync;
  private volatile boolean closed;
  /** Emits the frames {@link #nextFrame} makes, as far as demand reaches. */
  private final Drain drain = new Drain(this::nextFrame);

  /** Where the queue drains when woken; null: on the thread that woke it. */
  private final @Nullable DrainLoop drainer;
  private final boolean coalesce;
  /** Paces a coalescing subscriber's frames; see {@link Pacing}. */
  private final Pacing pacing;
  /** When the last frame went (on {@link Pacing}'s clock); read by wakers, written by the drain. */
  private volatile long lastFrameNanos;
  private volatile boolean framesSent;

  SubscriberQueue(ViewChannel channel, int maxPending, Resync resync, PushObserver pushed, @Nullable DrainLoop drainer,
      boolean coalesce, Pacing pacing) {
    this.channel = channel;
    this.maxPending = maxPending;
    this.resync = resync;
    this.pushed = pushed;
    this.drainer = drainer;
    this.coalesce = coalesce;
    this.pacing = pacing;
    if (coalesce) {
      pacing.joined();
    }
  }

  public ViewChannel channel() {
    return channel;
  }

  /** Connects the queue to its stream; emission starts with the next {@link #drain()}. */
  public void attach(FluxSink<byte[]> sink) {
    drain.attach(sink);
  }

  /** Adds an event; called under the registry's monitor. */
  synchronized void offer(OutboundEvent event) {
    if (needsResync || closed) {
      return;
    }
    if (pending.size() >= maxPending) {
      pending.clear();
      needsResync = true;
      return;
    }
    pending.add(event);
  }

  /** Replaces the backlog with a fresh snapshot; called under the registry's monitor. */
  public synchronized void restart(OutboundEvent snapshot) {
    pending.clear();
    pending.add(snapshot);
    needsResync = false;
  }

  /** Ends the stream normally; what was still pending is not sent. */
  void complete() {
    close();
    FluxSink<byte[]> out = drain.sink();
    if (out != null) {
      out.complete();
    }
  }

  void close() {
    synchronized (this) {
      if (!closed && coalesce) {
        pacing.left();
      }
      closed = true;
      pending.clear();
    }
  }

  /**
   * After new events were offered: drains on the subscriber's own thread (its connection's event
   * loop) when it has one, once however often it is woken meanwhile — so that a change to a view
   * with many subscribers is written by each subscriber's event loop, not all by the thread that
   * made the change (whose own answer would wait for every write) — else at once. A coalescing
   * subscriber's drain waits, if need be, for its {@link Pacing} window since the last frame.
   */
  public void wake() {
    if (drainer == null) {
      drain();
    } else {
      drain.handOff(drainer, pacedDelay());
    }
  }

  /**
   * Wakes the subscribers one change reached. Those drained on an event loop at once are drained
   * by one task per loop rather than one each: a change to a view with thousands of subscribers
   * hands each loop one task, not thousands. On the loop of the thread that made the change that
   * task goes after what the thread is doing, so that the answer to the change's own request is
   * written before the pushes it caused.
   */
  public static void wakeAll(Collection<SubscriberQueue> woken) {
    Map<Object, LoopBatch> batches = null;
    for (SubscriberQueue queue : woken) {
      if (queue.drain.handOffPending()) {
        continue; // a drain is on its way (a paced one, say): it takes what was just offered too
      }
      if (queue.drainer == null || queue.pacedDelay() > 0) {
        queue.wake();
      } else if (queue.drain.claimHandOff()) {
        if (batches == null) {
          batches = new IdentityHashMap<>(4);
        }
        DrainLoop loop = queue.drainer;
        batches.computeIfAbsent(loop.thread(), thread -> new LoopBatch(loop)).queues.add(queue);
      }
    }
    if (batches != null) {
      batches.values().forEach(LoopBatch::submit);
    }
  }

  /** The subscribers of one change that one event loop drains, in one task. */
  private static final class LoopBatch implements Runnable {
    private final DrainLoop loop;
    private final List<SubscriberQueue> queues = new ArrayList<>();
    private int next;

    LoopBatch(DrainLoop loop) {
      this.loop = loop;
    }

    void submit() {
      // On the calling thread's own loop: one hop to get behind the answer it is about to write.
      executeOrRelease(loop.inLoop() ? () -> executeOrRelease(this) : this);
    }

    private void executeOrRelease(Runnable task) {
      try {
        loop.execute(task);
      } catch (RejectedExecutionException stopping) {
        // The loop is shutting down, and the connections on it with it.
        queues.subList(next, queues.size()).forEach(queue -> queue.drain.releaseHandOff());
      }
    }

    @Override
    public void run() {
      // A few hundred at a time (a few milliseconds), then the loop's other work, reads included,
      // before the rest: thousands of subscribers on one loop must not hold its reads up for long.
      int end = Math.min(queues.size(), next + DRAINS_PER_TURN);
      for (; next < end; next++) {
        queues.get(next).drain.runHandedOff();
      }
      if (next < queues.size()) {
        executeOrRelease(this);
      }
    }
  }

  /** How long a coalescing subscriber's next frame must wait for its {@link Pacing} window; 0: none. */
  private long pacedDelay() {
    return coalesce && pacing.paces() && framesSent ? pacing.delayAfter(lastFrameNanos) : 0;
  }

  /** Emits what demand allows. Safe to call from any thread; one thread emits at a time. */
  public void drain() {
    drain.run();
  }

  /**
   * The next frame, for the drain: the oldest event, or, coalescing, every pending one as one
   * frame; a fresh snapshot first after the backlog collapsed. Null when nothing is pending, or
   * when the connection has more waiting than it should: the events then stay here (where they
   * coalesce, or collapse into a snapshot past the bound) and the drain is tried again shortly.
   */
  private byte @Nullable [] nextFrame() {
    while (!closed) {
      if (drainer != null && drainer.congested()) {
        drain.handOff(drainer, CONGESTION_RETRY_NANOS);
        return null;
      }
      List<OutboundEvent> next;
      synchronized (this) {
        next = needsResync ? null : take();
      }
      if (next == null) {
        resync.resync(this); // takes the registry's monitor: never while holding this queue's
        continue;
      }
      if (next.isEmpty()) {
        return null;
      }
      List<OutboundEvent> frame = next.size() == 1 ? next : EventBatch.coalesced(next);
      if (coalesce) {
        lastFrameNanos = pacing.now();
        framesSent = true;
      }
      for (OutboundEvent event : next) {
        if (event.createdAtNanos() != 0) {
          pushed.pushed(event.createdAtNanos(), event.traceOfPush());
        }
      }
      return frame.size() == 1 ? frame.get(0).bytes() : EventBatch.encode(frame);
    }
    return null;
  }

  /** What the next frame carries: the oldest event, or, coalescing, every pending event. */
  private List<OutboundEvent> take() {
    if (pending.isEmpty()) {
      return List.of();
    }
    if (!coalesce || pending.size() == 1) {
      return List.of(pending.poll());
    }
    List<OutboundEvent> all = new ArrayList<>(pending);
    pending.clear();
    return all;
  }
}
