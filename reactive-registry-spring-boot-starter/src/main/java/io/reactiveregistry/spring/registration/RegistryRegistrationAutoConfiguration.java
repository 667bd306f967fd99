package io.reactiveregistry.spring.registration;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.spring.boot.RegistryClientAutoConfiguration;
import io.reactiveregistry.spring.boot.RegistryProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.cloud.client.serviceregistry.AutoServiceRegistrationAutoConfiguration;
import org.springframework.cloud.client.serviceregistry.AutoServiceRegistrationProperties;
import org.springframework.cloud.commons.util.InetUtils;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The registry as Spring Cloud's {@code ServiceRegistry}, and this application registered in it
 * once its web server has started. Off with {@code reactive-registry.registration.enabled=false}
 * or Spring Cloud's {@code spring.cloud.service-registry.auto-registration.enabled=false}.
 */
@AutoConfiguration(after = {RegistryClientAutoConfiguration.class, AutoServiceRegistrationAutoConfiguration.class,
    UtilAutoConfiguration.class})
@ConditionalOnBean(RegistryClient.class)
@ConditionalOnBooleanProperty(name = "spring.cloud.service-registry.enabled", matchIfMissing = true)
public class RegistryRegistrationAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public RegistryServiceRegistry registryServiceRegistry(RegistryClient client, RegistryProperties properties) {
    return new RegistryServiceRegistry(client, properties.getReconnectMinBackoff(), properties.getReconnectMaxBackoff(),
        properties.getRequestTimeout());
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnClass(WebServerInitializedEvent.class)
  @ConditionalOnBean(AutoServiceRegistrationProperties.class)
  @ConditionalOnBooleanProperty(name = "reactive-registry.registration.enabled", matchIfMissing = true)
  @ConditionalOnBooleanProperty(name = "spring.cloud.service-registry.auto-registration.enabled",
      matchIfMissing = true)
  public RegistryAutoServiceRegistration registryAutoServiceRegistration(ApplicationContext context,
      RegistryServiceRegistry registry, AutoServiceRegistrationProperties autoProperties,
      RegistryProperties properties, InetUtils inetUtils) {
    return new RegistryAutoServiceRegistration(context, registry, autoProperties, properties, inetUtils);
  }
}
