package io.reactiveregistry.spring.health;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.spring.boot.RegistryClientAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code reactiveRegistry} health contributor, where Spring Boot's health support is present. */
@AutoConfiguration(after = RegistryClientAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(RegistryClient.class)
@ConditionalOnEnabledHealthIndicator("reactive-registry")
public class RegistryHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "reactiveRegistryHealthIndicator")
  public RegistryHealthIndicator reactiveRegistryHealthIndicator(RegistryClient client) {
    return new RegistryHealthIndicator(client);
  }
}
