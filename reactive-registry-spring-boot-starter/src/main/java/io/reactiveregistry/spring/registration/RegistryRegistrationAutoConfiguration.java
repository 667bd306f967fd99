package io.reactiveregistry.spring.registration;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.spring.boot.RegistryClientAutoConfiguration;
import io.reactiveregistry.spring.boot.RegistryProperties;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.cloud.client.serviceregistry.AutoServiceRegistrationAutoConfiguration;
import org.springframework.cloud.client.serviceregistry.AutoServiceRegistrationProperties;
import org.springframework.cloud.client.serviceregistry.ServiceRegistryAutoConfiguration;
import org.springframework.cloud.commons.util.InetUtils;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The registry as Spring Cloud's {@code ServiceRegistry}, and this application registered in it
 * once its web server has started. Off with {@code reactive-registry.registration.enabled=false}
 * or Spring Cloud's {@code spring.cloud.service-registry.auto-registration.enabled=false}.
 */
// Before Spring Cloud's ServiceRegistryAutoConfiguration: its /actuator/serviceregistry endpoint
// is made only when a ServiceRegistry bean exists by then.
@AutoConfiguration(after = {RegistryClientAutoConfiguration.class, AutoServiceRegistrationAutoConfiguration.class,
    UtilAutoConfiguration.class}, before = ServiceRegistryAutoConfiguration.class)
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
      RegistryProperties properties, RegistryRegistration registration) {
    return new RegistryAutoServiceRegistration(context, registry, autoProperties, properties, registration);
  }

  /**
   * This application's instance, from the {@code reactive-registry.registration.*} properties; its
   * port is the web server's unless configured, filled in once the web server has one. A bean, so
   * that Spring Cloud's {@code /actuator/serviceregistry} can read and set its status.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "reactive-registry.registration.enabled", matchIfMissing = true)
  public RegistryRegistration registryRegistration(RegistryProperties properties, Environment environment,
      InetUtils inetUtils) {
    RegistryProperties.Registration own = properties.getRegistration();
    String serviceId = own.getService() != null ? own.getService()
        : environment.getProperty("spring.application.name", "application");
    String ip = own.getIp() != null ? own.getIp() : inetUtils.findFirstNonLoopbackHostInfo().getIpAddress();
    Map<String, String> metadata = new LinkedHashMap<>(own.getMetadata());
    if (own.isSecure()) {
      metadata.put("secure", "true");
    }
    InstanceBody instance = new InstanceBody(null, ip, own.getPort() != null ? own.getPort() : 0, own.getCluster(),
        own.getWeight(), null, null, null, metadata);
    return new RegistryRegistration(new ServiceName(properties.getNamespace(), properties.getGroup(), serviceId),
        instance, own.isEphemeral());
  }
}
