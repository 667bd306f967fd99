package io.reactiveregistry.spring.discovery;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.RegistryUnavailableException;
import io.reactiveregistry.client.Selection;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.client.ServiceView;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The views of the services this application has asked about: a service asked for once is watched
 * from then on, so discovery and the load balancer answer from the latest pushed view, never by
 * polling. Each view is watched once, however many callers ask.
 */
public final class ServiceViews implements DisposableBean {
  private final RegistryClient client;
  private final String namespace;
  private final String group;
  private final Duration firstViewTimeout;
  private final @Nullable DiscoveryHeartbeats heartbeats;
  private final ConcurrentMap<Key, Watched> watched = new ConcurrentHashMap<>();
  private final Disposable.Composite subscriptions = Disposables.composite();

  /**
   * @param firstViewTimeout how long to wait for the first view of a service nobody asked about
   *     before (the registry may be unreachable)
   */
  public ServiceViews(RegistryClient client, String namespace, String group, Duration firstViewTimeout) {
    this(client, namespace, group, firstViewTimeout, null);
  }

  /**
   * @param heartbeats the watched catalog, which answers {@link #serviceIds()} once it has arrived,
   *     and is told when a view changes; null: none
   */
  public ServiceViews(RegistryClient client, String namespace, String group, Duration firstViewTimeout,
      @Nullable DiscoveryHeartbeats heartbeats) {
    this.client = client;
    this.namespace = namespace;
    this.group = group;
    this.firstViewTimeout = firstViewTimeout;
    this.heartbeats = heartbeats;
  }

  public ServiceName name(String serviceId) {
    return new ServiceName(namespace, group, serviceId);
  }

  /**
   * The service's views as they are pushed, the latest one first. {@code healthyOnly} views are
   * the server's healthy-only views, with its protection rule: what a load balancer needs.
   */
  public Flux<ServiceView> views(String serviceId, boolean healthyOnly) {
    return views(serviceId, healthyOnly ? Selection.healthy() : Selection.all());
  }

  /** The views of the part of the service {@code selection} asks for, as they are pushed. */
  public Flux<ServiceView> views(String serviceId, Selection selection) {
    return watched.computeIfAbsent(new Key(serviceId, selection), this::watch).views;
  }

  /**
   * The latest view, waiting for the first one if the service was never asked about; while no
   * registry server can be reached, the last view seen at once, or a failure at once when there
   * is none (a health check or a discovery call must not wait out the timeout in an outage).
   */
  public Mono<ServiceView> current(String serviceId, boolean healthyOnly) {
    Watched view = watched(serviceId, healthyOnly);
    ServiceView latest = view.latest;
    if (latest != null) {
      return Mono.just(latest);
    }
    if (client.isUnreachable()) {
      return Mono.error(new RegistryUnavailableException("no registry server reachable, and no view of "
          + serviceId + " seen before", null));
    }
    return view.views.next().timeout(firstViewTimeout);
  }

  /** The latest view if one has arrived, without waiting. */
  public Optional<ServiceView> latest(String serviceId, boolean healthyOnly) {
    return Optional.ofNullable(watched(serviceId, healthyOnly).latest);
  }

  /**
   * The names of the services in the configured namespace and group: from the watched catalog
   * once it has arrived (pushed, no request), else listed.
   */
  public Mono<List<String>> serviceIds() {
    Optional<List<String>> watched = heartbeats == null ? Optional.empty() : heartbeats.serviceIds();
    return watched.map(Mono::just).orElseGet(() -> client.services(namespace, group).map(summary -> summary.service())
        .collectList().timeout(firstViewTimeout));
  }

  private Watched watched(String serviceId, boolean healthyOnly) {
    return watched.computeIfAbsent(new Key(serviceId, healthyOnly ? Selection.healthy() : Selection.all()),
        this::watch);
  }

  private Watched watch(Key key) {
    Watched view = new Watched();
    view.views = client.watch(name(key.serviceId), key.selection)
        .doOnNext(next -> {
          view.latest = next;
          if (heartbeats != null) {
            heartbeats.viewChanged();
          }
        })
        .replay(1)
        .autoConnect(0, subscriptions::add);
    return view;
  }

  @Override
  public void destroy() {
    subscriptions.dispose();
  }

  private record Key(String serviceId, Selection selection) {}

  private static final class Watched {
    volatile @Nullable ServiceView latest;
    Flux<ServiceView> views = Flux.empty();
  }
}
