package io.reactiveregistry.spring.loadbalancer;

import io.reactiveregistry.client.InstanceChooser;
import io.reactiveregistry.client.Selection;
import io.reactiveregistry.client.ServiceView;
import io.reactiveregistry.spring.discovery.RegistryServiceInstance;
import io.reactiveregistry.spring.discovery.ServiceViews;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import reactor.core.publisher.Flux;

/**
 * The instances a load-balanced call may go to, from the service's pushed healthy-only view: the
 * healthy, enabled instances of weight above 0 (every enabled one while the service's protection
 * is triggered), in the preferred cluster while it has any. A new list is emitted with every
 * push, so a load-balanced {@code WebClient} or {@code RestClient} follows changes in
 * milliseconds; no cache, no polling.
 */
public final class RegistryServiceInstanceListSupplier implements ServiceInstanceListSupplier {
  private final String serviceId;
  private final ServiceViews views;
  private final @Nullable String preferredCluster;
  private final @Nullable String zone;
  private final Selection selection;

  public RegistryServiceInstanceListSupplier(String serviceId, ServiceViews views, @Nullable String preferredCluster) {
    this(serviceId, views, preferredCluster, null);
  }

  /**
   * @param selector the service's selector over instance metadata; null: every instance
   * @throws IllegalArgumentException naming the position when {@code selector} is not one
   */
  public RegistryServiceInstanceListSupplier(String serviceId, ServiceViews views, @Nullable String preferredCluster,
      @Nullable String selector) {
    this(serviceId, views, preferredCluster, selector, null);
  }

  /** @param zone the application's zone: its instances (metadata {@code zone}) are preferred; null: none */
  public RegistryServiceInstanceListSupplier(String serviceId, ServiceViews views, @Nullable String preferredCluster,
      @Nullable String selector, @Nullable String zone) {
    this.serviceId = serviceId;
    this.zone = zone;
    this.views = views;
    this.preferredCluster = preferredCluster;
    try {
      this.selection = Selection.healthy().matching(selector);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("reactive-registry.discovery.selectors." + serviceId + ": " + e.getMessage(),
          e);
    }
  }

  @Override
  public String getServiceId() {
    return serviceId;
  }

  @Override
  public Flux<List<ServiceInstance>> get() {
    return views.views(serviceId, selection).map(this::serving);
  }

  private List<ServiceInstance> serving(ServiceView view) {
    return InstanceChooser.candidates(view, preferredCluster, zone).stream()
        .<ServiceInstance>map(instance -> new RegistryServiceInstance(view.service(), instance))
        .toList();
  }
}
