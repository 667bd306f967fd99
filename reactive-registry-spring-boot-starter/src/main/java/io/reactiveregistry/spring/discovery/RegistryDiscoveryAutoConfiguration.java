package io.reactiveregistry.spring.discovery;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.spring.boot.RegistryClientAutoConfiguration;
import io.reactiveregistry.spring.boot.RegistryProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.client.ConditionalOnBlockingDiscoveryEnabled;
import org.springframework.cloud.client.ConditionalOnDiscoveryEnabled;
import org.springframework.cloud.client.ConditionalOnReactiveDiscoveryEnabled;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** DiscoveryClient and ReactiveDiscoveryClient on the registry's watches, and the catalog's HeartbeatEvents. */
@AutoConfiguration(after = RegistryClientAutoConfiguration.class, beforeName = {
    "org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration",
    "org.springframework.cloud.client.discovery.simple.reactive.SimpleReactiveDiscoveryClientAutoConfiguration",
    "org.springframework.cloud.client.CommonsClientAutoConfiguration",
    "org.springframework.cloud.client.ReactiveCommonsClientAutoConfiguration"})
@ConditionalOnBean(RegistryClient.class)
@ConditionalOnDiscoveryEnabled
@ConditionalOnBooleanProperty(name = "reactive-registry.discovery.enabled", matchIfMissing = true)
public class RegistryDiscoveryAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "reactive-registry.discovery.catalog-events", matchIfMissing = true)
  public DiscoveryHeartbeats registryDiscoveryHeartbeats(RegistryClient client, RegistryProperties properties,
      ApplicationEventPublisher publisher) {
    return new DiscoveryHeartbeats(client, properties.getNamespace(), properties.getGroup(), publisher);
  }

  @Bean
  @ConditionalOnMissingBean
  public ServiceViews registryServiceViews(RegistryClient client, RegistryProperties properties,
      ObjectProvider<DiscoveryHeartbeats> heartbeats) {
    return new ServiceViews(client, properties.getNamespace(), properties.getGroup(), properties.getRequestTimeout(),
        heartbeats.getIfAvailable());
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBlockingDiscoveryEnabled
  static class Blocking {
    @Bean
    @ConditionalOnMissingBean
    RegistryDiscoveryClient registryDiscoveryClient(ServiceViews views) {
      return new RegistryDiscoveryClient(views);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnReactiveDiscoveryEnabled
  static class Reactive {
    @Bean
    @ConditionalOnMissingBean
    RegistryReactiveDiscoveryClient registryReactiveDiscoveryClient(ServiceViews views) {
      return new RegistryReactiveDiscoveryClient(views);
    }
  }
}
