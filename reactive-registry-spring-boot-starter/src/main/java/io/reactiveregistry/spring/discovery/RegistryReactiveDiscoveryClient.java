package io.reactiveregistry.spring.discovery;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.ReactiveDiscoveryClient;
import reactor.core.publisher.Flux;

/**
 * Spring Cloud's reactive discovery on the registry's watches. A registry that cannot be reached
 * gives no instances (and a warning), as Spring Cloud's other discovery clients do; a service
 * already watched keeps answering from its last view.
 */
public final class RegistryReactiveDiscoveryClient implements ReactiveDiscoveryClient {
  private static final Logger log = LoggerFactory.getLogger(RegistryReactiveDiscoveryClient.class);

  private final ServiceViews views;

  public RegistryReactiveDiscoveryClient(ServiceViews views) {
    this.views = views;
  }

  @Override
  public String description() {
    return "Reactive Registry reactive discovery client";
  }

  @Override
  public Flux<ServiceInstance> getInstances(String serviceId) {
    return views.current(serviceId, false)
        .flatMapIterable(view -> RegistryDiscoveryClient.instances(view))
        .onErrorResume(error -> {
          log.warn("no instances of {}: {}", serviceId, error.toString());
          return Flux.empty();
        });
  }

  @Override
  public Flux<String> getServices() {
    return views.serviceIds().flatMapIterable(ids -> ids).onErrorResume(error -> {
      log.warn("no service list: {}", error.toString());
      return Flux.empty();
    });
  }
}
