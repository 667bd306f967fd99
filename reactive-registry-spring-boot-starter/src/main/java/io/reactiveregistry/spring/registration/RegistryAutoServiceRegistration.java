package io.reactiveregistry.spring.registration;

import io.reactiveregistry.spring.boot.RegistryProperties;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.client.serviceregistry.AbstractAutoServiceRegistration;
import org.springframework.cloud.client.serviceregistry.AutoServiceRegistrationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Registers this application once its web server has started (Spring Cloud's
 * {@code WebServerInitializedEvent} handling), as {@code spring.application.name} on the web
 * server's port, and deregisters it when the context stops.
 *
 * <p>Deregistration comes first in a graceful shutdown: as a {@link SmartLifecycle} stopped before
 * the web server's graceful shutdown, callers see the instance go and move away while it still
 * answers the requests already on their way; it keeps listening for
 * {@code reactive-registry.registration.deregister-grace} more, the time a push takes to reach
 * the callers with room to spare. (Spring Cloud's default deregisters only when the
 * bean is destroyed, after the web server has drained.) It is not started by the lifecycle: the
 * web server's event starts it, so an application without a web server registers nothing.
 */
public final class RegistryAutoServiceRegistration extends AbstractAutoServiceRegistration<RegistryRegistration>
    implements SmartLifecycle {
  private final RegistryProperties properties;
  private final RegistryRegistration registration;

  public RegistryAutoServiceRegistration(ApplicationContext context, RegistryServiceRegistry serviceRegistry,
      AutoServiceRegistrationProperties autoProperties, RegistryProperties properties,
      RegistryRegistration registration) {
    super(context, serviceRegistry, autoProperties);
    this.properties = properties;
    this.registration = registration;
  }

  @Override
  public int getPhase() {
    return WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE + 1;
  }

  @Override
  public boolean isAutoStartup() {
    return false;
  }

  @Override
  public void stop() {
    boolean wasRegistered = isRunning() && isEnabled();
    super.stop();
    Duration grace = properties.getRegistration().getDeregisterGrace();
    if (wasRegistered && !grace.isZero() && !grace.isNegative()) {
      try {
        // On the thread closing the context, never an event loop: callers' views catch up meanwhile.
        Thread.sleep(grace.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  protected Object getConfiguration() {
    return properties;
  }

  @Override
  protected boolean isEnabled() {
    return properties.getRegistration().isEnabled();
  }

  /** Once the web server's port is known (Spring Cloud asks before it registers). */
  @Override
  protected @Nullable RegistryRegistration getRegistration() {
    if (getPort().get() > 0) {
      return registration.atPort(getPort().get());
    }
    return properties.getRegistration().getPort() != null ? registration : null;
  }

  /** The management server, when it has a port of its own, is not registered as a service. */
  @Override
  protected @Nullable RegistryRegistration getManagementRegistration() {
    return null;
  }
}
