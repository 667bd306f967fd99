package io.reactiveregistry.spring.loadbalancer;

import io.reactiveregistry.spring.boot.RegistryProperties;
import io.reactiveregistry.spring.discovery.ServiceViews;
import java.util.random.RandomGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The beans of each load-balanced service's own context (Spring Cloud LoadBalancer makes one per
 * service name): its instance list from the registry's watch and a weighted choice. An
 * application's own {@code @LoadBalancerClient} configuration still wins.
 */
@Configuration(proxyBeanMethods = false)
public class RegistryLoadBalancerClientConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public ServiceInstanceListSupplier registryServiceInstanceListSupplier(Environment environment, ServiceViews views,
      RegistryProperties properties) {
    String serviceId = LoadBalancerClientFactory.getName(environment);
    return new RegistryServiceInstanceListSupplier(serviceId, views, properties.getDiscovery().getPreferredCluster(),
        properties.getDiscovery().getSelectors().get(serviceId), properties.getZone());
  }

  @Bean
  @ConditionalOnMissingBean
  public ReactorLoadBalancer<ServiceInstance> registryLoadBalancer(Environment environment,
      LoadBalancerClientFactory factory) {
    String serviceId = LoadBalancerClientFactory.getName(environment);
    return new WeightedRandomLoadBalancer(serviceId, factory.getLazyProvider(serviceId,
        ServiceInstanceListSupplier.class), RandomGenerator.getDefault());
  }
}
