package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.message.ServiceSubscribers;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

/**
 * Who watches each service on this member ({@code admin.service.subscribers}): every door's
 * watches (RSocket's {@code service.subscribe}, HTTP's server-sent events, Nacos's subscriptions)
 * are entered here while their stream is open, and leave when it ends, however it ends.
 */
final class Watchers {
  private record Watch(Watcher caller, @Nullable String principal, ViewFilter filter, long since, long order) {}

  private final Map<ServiceKey, Set<Watch>> watches = new ConcurrentHashMap<>();
  private final InstantSource clock;
  /** Orders watches opened within the same millisecond. */
  private final AtomicLong opened = new AtomicLong();

  Watchers(InstantSource clock) {
    this.clock = clock;
  }

  /** {@code stream}, entered as a watch of {@code service} from its subscription to its end. */
  <T> Flux<T> watched(ServiceKey service, Watcher caller, @Nullable String principal, ViewFilter filter,
      Flux<T> stream) {
    return Flux.defer(() -> {
      Watch watch = new Watch(caller, principal, filter, clock.millis(), opened.incrementAndGet());
      watches.computeIfAbsent(service, key -> ConcurrentHashMap.newKeySet()).add(watch);
      return stream.doFinally(signal -> watches.computeIfPresent(service, (key, open) -> {
        open.remove(watch);
        return open.isEmpty() ? null : open;
      }));
    });
  }

  /** The watches open on {@code service}, oldest first. */
  List<ServiceSubscribers.Subscriber> of(ServiceKey service) {
    Set<Watch> open = watches.get(service);
    if (open == null) {
      return List.of();
    }
    List<Watch> sorted = new ArrayList<>(open);
    sorted.sort(Comparator.comparingLong(Watch::since).thenComparingLong(Watch::order));
    List<ServiceSubscribers.Subscriber> subscribers = new ArrayList<>(sorted.size());
    for (Watch watch : sorted) {
      ViewFilter filter = watch.filter();
      subscribers.add(new ServiceSubscribers.Subscriber(watch.caller().label(), watch.caller().transport(),
          watch.principal(), filter.clusters().isEmpty() ? null : filter.clusters().stream().sorted().toList(),
          filter.healthyOnly(), filter.selector().selectsEverything() ? null : filter.selector().toString(),
          watch.since()));
    }
    return subscribers;
  }
}
