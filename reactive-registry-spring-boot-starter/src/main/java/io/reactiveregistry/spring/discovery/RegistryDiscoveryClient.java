package io.reactiveregistry.spring.discovery;

import io.reactiveregistry.client.ServiceView;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;

/**
 * Spring Cloud's blocking discovery on the registry's watches: answers at once from the pushed
 * view of a service already watched, and waits (up to the request timeout) only the first time a
 * service is asked for. Not for event-loop threads.
 */
public final class RegistryDiscoveryClient implements DiscoveryClient {
  private static final Logger log = LoggerFactory.getLogger(RegistryDiscoveryClient.class);

  private final ServiceViews views;

  public RegistryDiscoveryClient(ServiceViews views) {
    this.views = views;
  }

  @Override
  public String description() {
    return "Reactive Registry discovery client";
  }

  @Override
  public List<ServiceInstance> getInstances(String serviceId) {
    try {
      ServiceView view = views.latest(serviceId, false).orElseGet(() -> views.current(serviceId, false).block());
      return view == null ? List.of() : instances(view);
    } catch (RuntimeException error) {
      log.warn("no instances of {}: {}", serviceId, error.toString());
      return List.of();
    }
  }

  @Override
  public List<String> getServices() {
    try {
      List<String> ids = views.serviceIds().block();
      return ids == null ? List.of() : ids;
    } catch (RuntimeException error) {
      log.warn("no service list: {}", error.toString());
      return List.of();
    }
  }

  static List<ServiceInstance> instances(ServiceView view) {
    return view.instances().stream()
        .<ServiceInstance>map(instance -> new RegistryServiceInstance(view.service(), instance))
        .toList();
  }
}
