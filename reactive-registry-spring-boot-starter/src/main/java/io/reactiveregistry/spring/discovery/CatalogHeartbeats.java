package io.reactiveregistry.spring.discovery;

import io.reactiveregistry.client.CatalogView;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.protocol.message.ServiceSummary;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;

/**
 * The catalog of the configured namespace and group, watched ({@code catalog.subscribe}) while
 * the application runs: each time a service appears, goes, or changes its counts, Spring Cloud's
 * {@link HeartbeatEvent} is published with the catalog's revision, so that Spring Cloud Gateway's
 * discovery locator and every other {@code DiscoveryClient} cache refresh at once rather than on a
 * polling interval. The latest catalog also answers {@code getServices()} without a request.
 */
public final class CatalogHeartbeats implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(CatalogHeartbeats.class);

  private final RegistryClient client;
  private final String namespace;
  private final String group;
  private final ApplicationEventPublisher publisher;
  private volatile @Nullable Disposable watching;
  private volatile @Nullable CatalogView latest;

  public CatalogHeartbeats(RegistryClient client, String namespace, String group, ApplicationEventPublisher publisher) {
    this.client = client;
    this.namespace = namespace;
    this.group = group;
    this.publisher = publisher;
  }

  @Override
  public void start() {
    watching = client.catalog(namespace, group, null).subscribe(view -> {
      latest = view;
      if (!view.stale()) {
        publisher.publishEvent(new HeartbeatEvent(this, view.revision()));
      }
    }, error -> log.warn("the catalog of {}/{} is no longer watched: {}", namespace, group, error.toString()));
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
