package io.reactiveregistry.spring.health;

import io.reactiveregistry.client.Registration;
import io.reactiveregistry.client.RegistryClient;
import java.util.List;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code UP} while the client holds a connection to a registry server, with how many of this
 * application's instances are registered on it; {@code DOWN} while it has none (it keeps trying in
 * the background, and the application keeps its last views). Turn it off with
 * {@code management.health.reactive-registry.enabled=false} where the registry being unreachable
 * should not make the application unhealthy.
 */
public final class RegistryHealthIndicator extends AbstractHealthIndicator {
  private final RegistryClient client;

  public RegistryHealthIndicator(RegistryClient client) {
    super("registry health check failed");
    this.client = client;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    List<Registration> registrations = client.registrations();
    long active = registrations.stream().filter(Registration::isActive).count();
    builder.status(client.isConnected() ? "UP" : "DOWN")
        .withDetail("connected", client.isConnected())
        .withDetail("registrations", registrations.size())
        .withDetail("registrationsActive", active);
  }
}
