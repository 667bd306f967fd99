package io.reactiveregistry.server.push;

import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Fans core events out to the subscribers of every affected view. Every method runs under the
 * registry's monitor (see {@code RegistryRuntime}); emission to the network happens after it is
 * released, through {@link SubscriberQueue#drain()}.
 */
public final class PushHub {
  private final Map<ServiceKey, List<ViewChannel>> channels = new HashMap<>();
  private final int maxPending;
  private final PushObserver pushed;
  private final ResumeHistory history;
  private final Pacing pacing;
  private final AtomicLong resumed = new AtomicLong();
  private final AtomicLong notResumed = new AtomicLong();
  private int subscriberCount;

  /** @param maxPending how many events one subscriber may have pending before they collapse into a snapshot */
  public PushHub(int maxPending) {
    this(maxPending, (changedAt, trace) -> { }, new ResumeHistory(ResumeHistory.Limits.DEFAULTS, InstantSource.system(),
        "local"));
  }

  /**
   * @param pushed told, for each event handed to a subscriber, when its change was made (nanoTime)
   *     and, for the first pushes of a traced change, its trace (see {@link PushObserver})
   * @param history what subscribers resume from
   */
  public PushHub(int maxPending, PushObserver pushed, ResumeHistory history) {
    this(maxPending, pushed, history, Pacing.NONE);
  }

  /** @param pacing how often a coalescing subscriber is written to */
  public PushHub(int maxPending, PushObserver pushed, ResumeHistory history, Pacing pacing) {
    this.maxPending = maxPending;
    this.pushed = pushed;
    this.history = history;
    this.pacing = pacing;
  }

  /** Where a subscriber resumes: after {@code revision} of {@code node}'s stream. */
  public record Resume(long revision, @Nullable String node) {}

  /** A new subscriber of the view, its queue holding the view's current snapshot. */
  public SubscriberQueue open(ServiceKey service, ViewFilter filter, RegistryReads registry, SubscriberQueue.Resync resync) {
    return open(service, filter, null, null, false, registry, resync);
  }

  /**
   * A new subscriber of the view. Its queue holds the view's current snapshot; or, resuming within
   * the history, {@code RESUMED} and the changes it missed; or, resuming from outside it, the
   * snapshot flagged as not resumed. It drains on {@code drainer} when woken (see
   * {@link SubscriberQueue#wake()}); with {@code coalesce}, what is pending together goes as one
   * {@code BATCH}, paced by the hub's {@link Pacing}.
   */
  public SubscriberQueue open(ServiceKey service, ViewFilter filter, @Nullable Resume resume,
      @Nullable DrainLoop drainer, boolean coalesce, RegistryReads registry, SubscriberQueue.Resync resync) {
    List<OutboundEvent> missed = resume == null ? null
        : history.missedSince(service, filter, resume.revision(), resume.node(), registry);
    List<ViewChannel> views = channels.computeIfAbsent(service, k -> new ArrayList<>(1));
    ViewChannel channel = null;
    for (ViewChannel candidate : views) {
      if (candidate.filter().equals(filter)) {
        channel = candidate;
      }
    }
    boolean opened = channel == null;
    if (opened) {
      channel = new ViewChannel(service, filter, history.node());
      views.add(channel);
    }
    SubscriberQueue queue = new SubscriberQueue(channel, maxPending, resync, pushed, drainer, coalesce, pacing);
    if (resume != null) {
      (missed == null ? notResumed : resumed).incrementAndGet();
    }
    if (missed == null) {
      OutboundEvent snapshot = channel.snapshot(registry);
      queue.offer(resume == null ? snapshot : new OutboundEvent(snapshot.message().notResumed()));
    } else {
      if (opened) {
        channel.reset(registry); // the channel follows the view from now; the subscriber has it already
      }
      missed.forEach(queue::offer);
    }
    channel.subscribers().add(queue);
    history.subscribed(service, registry);
    subscriberCount++;
    return queue;
  }

  /** Gives a subscriber that fell behind a fresh snapshot of its view. */
  public void resync(SubscriberQueue queue, RegistryReads registry) {
    queue.restart(queue.channel().snapshot(registry));
  }

  public void close(SubscriberQueue queue) {
    queue.close();
    ViewChannel channel = queue.channel();
    if (!channel.subscribers().remove(queue)) {
      return; // already detached (completeAll)
    }
    subscriberCount--;
    history.unsubscribed(channel.service());
    if (channel.subscribers().isEmpty()) {
      List<ViewChannel> views = channels.get(channel.service());
      if (views != null) {
        views.remove(channel);
        if (views.isEmpty()) {
          channels.remove(channel.service());
        }
      }
    }
  }

  /**
   * Queues one command's events to the affected subscribers.
   *
   * @return the subscribers that got something and should be drained once the monitor is released,
   *     each once (a subscriber belongs to one channel)
   */
  public Collection<SubscriberQueue> publish(List<RegistryEvent> events, RegistryReads registry) {
    history.record(events, registry);
    if (events.isEmpty() || channels.isEmpty()) {
      return List.of();
    }
    Map<ServiceKey, List<RegistryEvent>> byService = new LinkedHashMap<>();
    for (RegistryEvent event : events) {
      if (channels.containsKey(event.service())) {
        byService.computeIfAbsent(event.service(), k -> new ArrayList<>()).add(event);
      }
    }
    // A list, not a set: with thousands of subscribers to a view (a fleet watching itself through
    // a reconnect storm) hashing each into a set was a node per subscriber per change.
    List<SubscriberQueue> woken = new ArrayList<>();
    byService.forEach((service, serviceEvents) -> {
      for (ViewChannel channel : channels.get(service)) {
        List<OutboundEvent> out = channel.apply(serviceEvents, registry);
        if (out.isEmpty()) {
          continue;
        }
        for (SubscriberQueue queue : channel.subscribers()) {
          for (OutboundEvent event : out) {
            queue.offer(event);
          }
          woken.add(queue);
        }
      }
    });
    return woken;
  }

  /** Completes every subscriber's stream and forgets all channels. */
  public void completeAll() {
    // Detach everything first: completing a stream runs its dispose hook, which calls close().
    List<SubscriberQueue> all = new ArrayList<>();
    for (List<ViewChannel> views : channels.values()) {
      for (ViewChannel channel : views) {
        all.addAll(channel.subscribers());
      }
    }
    channels.clear();
    for (SubscriberQueue queue : all) {
      history.unsubscribed(queue.channel().service());
    }
    subscriberCount = 0;
    all.forEach(SubscriberQueue::complete);
  }

  /** Subscriptions that asked to resume: those that did, and those that got a snapshot instead. */
  public long resumes(boolean made) {
    return made ? resumed.get() : notResumed.get();
  }

  /** Changes kept for subscribers that resume, for all services. */
  public int resumeHistorySize() {
    return history.size();
  }

  public int subscriberCount() {
    return subscriberCount;
  }
}
