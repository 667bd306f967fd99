package io.reactiveregistry.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Tracer;
import io.reactiveregistry.client.ClientTls;
import io.reactiveregistry.client.RegistryClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * One {@link RegistryClient} for the application, from the {@code reactive-registry.*}
 * properties. It connects in the background: the application starts whether or not a registry
 * server is up, and the client keeps trying.
 */
@AutoConfiguration
@ConditionalOnClass(RegistryClient.class)
@ConditionalOnBooleanProperty(name = "reactive-registry.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RegistryProperties.class)
public class RegistryClientAutoConfiguration {

  /**
   * Closed with the context, after the application's own registration has been withdrawn: the
   * client deregisters whatever ephemeral instance is left and closes its connection.
   */
  @Bean(destroyMethod = "closeAndWait")
  @ConditionalOnMissingBean
  public RegistryClient registryClient(RegistryProperties properties, Environment environment,
      ObjectProvider<ClientMeterBinding> meters, ObjectProvider<ClientTraceBinding> traces) {
    RegistryClient.Builder builder = RegistryClient.builder()
        .servers(properties.getServers().toArray(String[]::new))
        .clientName(clientName(properties, environment))
        .zone(properties.getZone())
        .connectTimeout(properties.getConnectTimeout())
        .requestTimeout(properties.getRequestTimeout())
        .reconnectBackoff(properties.getReconnectMinBackoff(), properties.getReconnectMaxBackoff())
        .pushEmptyProtection(properties.isPushEmptyProtection());
    if (properties.getToken() != null) {
      builder.token(properties.getToken());
    }
    RegistryProperties.Tls tls = properties.getTls();
    if (tls.configured()) {
      builder.tls(new ClientTls(tls.getTrustedCertificates(), tls.getCertificate(), tls.getKey()));
    }
    if (properties.getViewCacheDirectory() != null) {
      builder.viewCache(properties.getViewCacheDirectory(), properties.getViewCacheMaxAge());
    }
    meters.ifAvailable(binding -> binding.applyTo(builder));
    traces.ifAvailable(binding -> binding.applyTo(builder));
    return builder.build();
  }

  private static String clientName(RegistryProperties properties, Environment environment) {
    if (properties.getClientName() != null) {
      return properties.getClientName();
    }
    return environment.getProperty("spring.application.name", "spring-application");
  }

  /** The client's meters on the application's MeterRegistry, when Micrometer is there. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Meters {
    @Bean
    ClientMeterBinding registryClientMeterBinding(ObjectProvider<MeterRegistry> registry) {
      return new ClientMeterBinding(registry);
    }
  }

  /** The client's requests in the application's current trace, when Micrometer Tracing is there. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Tracer.class)
  static class Traces {
    @Bean
    ClientTraceBinding registryClientTraceBinding(ObjectProvider<Tracer> tracer) {
      return new ClientTraceBinding(tracer);
    }
  }
}
