package io.reactiveregistry.server.push;

import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * Fans core events out to the subscribers of every affected view. Every method runs under the
 * registry's monitor (see {@code RegistryRuntime}); emission to the network happens after it is
 * released, through {@link SubscriberQueue#drain()}.
 */
public final class PushHub {
  private final Map<ServiceKey, List<ViewChannel>> channels = new HashMap<>();
  private final int maxPending;
  private final LongConsumer pushed;
  private int subscriberCount;

  /** @param maxPending how many events one subscriber may have pending before they collapse into a snapshot */
  public PushHub(int maxPending) {
    this(maxPending, changedAt -> { });
  }

  /** @param pushed told, for each event handed to a subscriber, when its change was made (nanoTime) */
  public PushHub(int maxPending, LongConsumer pushed) {
    this.maxPending = maxPending;
    this.pushed = pushed;
  }

  /** A new subscriber of the view, its queue holding the view's current snapshot. */
  public SubscriberQueue open(ServiceKey service, ViewFilter filter, RegistryReads registry, SubscriberQueue.Resync resync) {
    List<ViewChannel> views = channels.computeIfAbsent(service, k -> new ArrayList<>(1));
    ViewChannel channel = null;
    for (ViewChannel candidate : views) {
      if (candidate.filter().equals(filter)) {
        channel = candidate;
      }
    }
    if (channel == null) {
      channel = new ViewChannel(service, filter);
      views.add(channel);
    }
    SubscriberQueue queue = new SubscriberQueue(channel, maxPending, resync, pushed);
    queue.offer(channel.snapshot(registry));
    channel.subscribers().add(queue);
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
   * @return the subscribers that got something and should be drained once the monitor is released
   */
  public Set<SubscriberQueue> publish(List<RegistryEvent> events, RegistryReads registry) {
    if (events.isEmpty() || channels.isEmpty()) {
      return Set.of();
    }
    Map<ServiceKey, List<RegistryEvent>> byService = new LinkedHashMap<>();
    for (RegistryEvent event : events) {
      if (channels.containsKey(event.service())) {
        byService.computeIfAbsent(event.service(), k -> new ArrayList<>()).add(event);
      }
    }
    Set<SubscriberQueue> woken = new LinkedHashSet<>();
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
    subscriberCount = 0;
    all.forEach(SubscriberQueue::complete);
  }

  public int subscriberCount() {
    return subscriberCount;
  }
}
