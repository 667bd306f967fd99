package io.reactiveregistry.spring.registration;

import io.reactiveregistry.client.Registration;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.RegistryErrorException;
import io.reactiveregistry.protocol.ErrorCode;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;
import reactor.core.Disposable;
import reactor.util.retry.Retry;

/**
 * Spring Cloud's service registry on the registry client. {@link #register} returns at once and
 * keeps trying in the background while no server is reachable (an application must start whether
 * or not the registry is up); once registered, the client heartbeats the instance and registers it
 * again after every reconnect. A refusal the server would repeat (bad input, no permission) is
 * logged as an error and not retried.
 */
public final class RegistryServiceRegistry implements ServiceRegistry<RegistryRegistration> {
  private static final Logger log = LoggerFactory.getLogger(RegistryServiceRegistry.class);

  private final RegistryClient client;
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final Duration deregisterTimeout;
  private final Map<String, Attempt> attempts = new ConcurrentHashMap<>();

  public RegistryServiceRegistry(RegistryClient client, Duration minBackoff, Duration maxBackoff,
      Duration deregisterTimeout) {
    this.client = client;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.deregisterTimeout = deregisterTimeout;
  }

  @Override
  public void register(RegistryRegistration registration) {
    Attempt attempt = new Attempt();
    Attempt previous = attempts.put(registration.getInstanceId(), attempt);
    if (previous != null) {
      previous.pending.dispose();
    }
    attempt.pending = client.register(registration.service(), registration.instance(), registration.ephemeral())
        .doOnError(error -> log.warn("could not register {} as {} yet ({}); retrying", registration.getInstanceId(),
            registration.service(), error.toString()))
        .retryWhen(Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).jitter(0.5)
            .filter(RegistryServiceRegistry::worthRetrying))
        .subscribe(done -> {
          attempt.registered = done;
          log.info("registered {} as {}", registration.getInstanceId(), registration.service());
        }, error -> log.error("could not register {} as {}: {}", registration.getInstanceId(),
            registration.service(), error.toString()));
  }

  /** Whether the instance is registered now (false while the first attempt is still being retried). */
  public boolean isRegistered(RegistryRegistration registration) {
    Attempt attempt = attempts.get(registration.getInstanceId());
    return attempt != null && attempt.registered != null && attempt.registered.isActive();
  }

  /** Stops trying and removes the instance; waits for the server's answer, as shutdown needs. */
  @Override
  public void deregister(RegistryRegistration registration) {
    Attempt attempt = attempts.remove(registration.getInstanceId());
    if (attempt == null) {
      return;
    }
    attempt.pending.dispose();
    Registration registered = attempt.registered;
    if (registered != null) {
      try {
        registered.deregister().block(deregisterTimeout);
        log.info("deregistered {} from {}", registration.getInstanceId(), registration.service());
      } catch (RuntimeException error) {
        log.warn("could not deregister {} from {}: {}", registration.getInstanceId(), registration.service(),
            error.toString());
      }
    }
  }

  /** The client is a bean of its own and is closed with the context. */
  @Override
  public void close() {}

  /**
   * Not supported: the registry has no per-instance status. An operator takes an instance out of
   * traffic with {@code admin.instance.patch} ({@code "enabled": false}).
   */
  @Override
  public void setStatus(RegistryRegistration registration, String status) {
    throw new UnsupportedOperationException("the registry has no instance status: disable the instance with "
        + "admin.instance.patch instead");
  }

  /** {@code UP} while the instance is registered, otherwise {@code DOWN}. */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T getStatus(RegistryRegistration registration) {
    return (T) (isRegistered(registration) ? "UP" : "DOWN");
  }

  private static boolean worthRetrying(Throwable error) {
    if (error instanceof RegistryErrorException refusal) {
      return refusal.code() == ErrorCode.LIMIT_EXCEEDED || refusal.code() == ErrorCode.UNAVAILABLE;
    }
    return true;
  }

  private static final class Attempt {
    volatile Disposable pending = () -> {};
    volatile Registration registered;
  }
}
