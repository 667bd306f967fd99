package io.reactiveregistry.spring.loadbalancer;

import io.reactiveregistry.spring.discovery.RegistryServiceInstance;
import java.util.List;
import java.util.random.RandomGenerator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.DefaultResponse;
import org.springframework.cloud.client.loadbalancer.EmptyResponse;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.loadbalancer.core.NoopServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.core.ReactorServiceInstanceLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import reactor.core.publisher.Mono;

/**
 * Picks one instance at random in proportion to its registered weight, the way the registry
 * client's own {@code choose} does (Spring Cloud's round robin ignores weights). Instances that
 * are not the registry's count with weight 1.
 */
public final class WeightedRandomLoadBalancer implements ReactorServiceInstanceLoadBalancer {
  private final String serviceId;
  private final ObjectProvider<ServiceInstanceListSupplier> suppliers;
  private final RandomGenerator random;

  public WeightedRandomLoadBalancer(String serviceId, ObjectProvider<ServiceInstanceListSupplier> suppliers,
      RandomGenerator random) {
    this.serviceId = serviceId;
    this.suppliers = suppliers;
    this.random = random;
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Mono<Response<ServiceInstance>> choose(Request request) {
    ServiceInstanceListSupplier supplier = suppliers.getIfAvailable(NoopServiceInstanceListSupplier::new);
    return supplier.get(request).next().map(this::pick);
  }

  Response<ServiceInstance> pick(List<ServiceInstance> instances) {
    double total = 0;
    for (ServiceInstance instance : instances) {
      total += weight(instance);
    }
    if (instances.isEmpty() || total <= 0) {
      return new EmptyResponse();
    }
    double point = random.nextDouble() * total;
    for (ServiceInstance instance : instances) {
      point -= weight(instance);
      if (point < 0) {
        return new DefaultResponse(instance);
      }
    }
    return new DefaultResponse(instances.get(instances.size() - 1));
  }

  private static double weight(ServiceInstance instance) {
    return instance instanceof RegistryServiceInstance registered ? registered.weight() : 1.0;
  }

  @Override
  public String toString() {
    return "WeightedRandomLoadBalancer[" + serviceId + "]";
  }
}
