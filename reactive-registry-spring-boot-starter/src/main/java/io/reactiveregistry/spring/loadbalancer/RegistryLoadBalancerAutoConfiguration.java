package io.reactiveregistry.spring.loadbalancer;

import io.reactiveregistry.spring.discovery.RegistryDiscoveryAutoConfiguration;
import io.reactiveregistry.spring.discovery.ServiceViews;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;
import org.springframework.cloud.loadbalancer.config.LoadBalancerAutoConfiguration;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;

/** Spring Cloud LoadBalancer fed by the registry's watches, for every load-balanced service name. */
@AutoConfiguration(after = RegistryDiscoveryAutoConfiguration.class, before = LoadBalancerAutoConfiguration.class)
@ConditionalOnClass(ServiceInstanceListSupplier.class)
@ConditionalOnBean(ServiceViews.class)
@ConditionalOnBooleanProperty(name = "spring.cloud.loadbalancer.enabled", matchIfMissing = true)
@LoadBalancerClients(defaultConfiguration = RegistryLoadBalancerClientConfiguration.class)
public class RegistryLoadBalancerAutoConfiguration {}
