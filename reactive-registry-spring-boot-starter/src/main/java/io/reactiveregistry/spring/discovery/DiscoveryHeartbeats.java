package io.reactiveregistry.spring.discovery;

import io.reactiveregistry.client.CatalogView;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.protocol.message.ServiceSummary;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * Spring Cloud's {@link HeartbeatEvent} whenever what discovery answers changes: the catalog of
 * the configured namespace and group, watched ({@code catalog.subscribe}) while the application
 * runs (a service appears, goes, or changes its counts), and the pushed view of any service the
 * application asked about. Spring Cloud Gateway's discovery locator rebuilds its routes on it,
 * and other {@code DiscoveryClient} caches refresh, at once rather than on a polling interval.
 * Both kinds count: a gateway rebuilding on a catalog change may read a service's instances
 * before that service's own view has caught up, and rebuilds again when it has. Events close
 * together become one. The latest catalog also answers {@code getServices()} without a request.
 */
public final class DiscoveryHeartbeats implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(DiscoveryHeartbeats.class);

  private final RegistryClient client;
  private final String namespace;
  private final String group;
  private final ApplicationEventPublisher publisher;
  private final Sinks.Many<Boolean> viewChanges = Sinks.many().multicast().directBestEffort();
  /** The heartbeat's value: Spring Cloud refreshes when it differs from the last one. */
  private final AtomicLong changes = new AtomicLong();
  private volatile @Nullable Disposable watching;
  private volatile @Nullable CatalogView latest;

  public DiscoveryHeartbeats(RegistryClient client, String namespace, String group,
      ApplicationEventPublisher publisher) {
    this.client = client;
    this.namespace = namespace;
    this.group = group;
    this.publisher = publisher;
  }

  @Override
  public void start() {
    Flux<Object> catalog = client.catalog(namespace, group, null)
        .doOnNext(view -> latest = view)
        .filter(view -> !view.stale())
        .cast(Object.class)
        .doOnError(error -> log.warn("the catalog of {}/{} is not watched: {}", namespace, group, error.toString()))
        .onErrorResume(error -> Flux.never()); // the views' changes still count
    watching = Flux.merge(catalog, viewChanges.asFlux())
        .onBackpressureLatest()
        // Listeners run on the publishing thread, and some block (a gateway rebuilding its routes
        // asks discovery for every service): not on an event loop. One at a time; what arrives
        // meanwhile becomes one more.
        .publishOn(Schedulers.boundedElastic(), 1)
        .subscribe(change -> {
          try {
            publisher.publishEvent(new HeartbeatEvent(this, changes.incrementAndGet()));
          } catch (RuntimeException listenerFailed) {
            log.warn("a listener of discovery's HeartbeatEvent failed: {}", listenerFailed.toString());
          }
        });
  }

  /** A pushed view of a service changed: what discovery answers for it did. */
  void viewChanged() {
    viewChanges.tryEmitNext(Boolean.TRUE);
  }

  @Override
  public void stop() {
    Disposable subscription = watching;
    if (subscription != null) {
      subscription.dispose();
      watching = null;
    }
  }

  @Override
  public boolean isRunning() {
    return watching != null;
  }

  /** The names of the services of the latest catalog, once one has arrived. */
  public Optional<List<String>> serviceIds() {
    CatalogView view = latest;
    return view == null ? Optional.empty()
        : Optional.of(view.services().stream().map(ServiceSummary::service).toList());
  }
}
