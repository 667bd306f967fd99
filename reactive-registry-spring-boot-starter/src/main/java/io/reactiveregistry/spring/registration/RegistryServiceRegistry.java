package io.reactiveregistry.spring.registration;

import io.reactiveregistry.client.Registration;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.RegistryErrorException;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceStatus;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
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
    attempt.pending = Mono.defer(() -> client.register(registration.service(), attempt.instance(registration),
            registration.ephemeral()))
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
   * The instance's own status ({@code UP}, {@code DOWN}, {@code OUT_OF_SERVICE}, any case; what
   * {@code POST /actuator/serviceregistry} sets): {@code DOWN} and {@code OUT_OF_SERVICE} take it
   * out of traffic, {@code UP} puts it back. Registered at once when it is registered (waiting up
   * to the deregistration timeout for the answer), else with its registration when that succeeds;
   * kept across reconnects.
   *
   * @throws IllegalArgumentException for another status, or an instance this registry was not
   *     asked to register
   */
  @Override
  public void setStatus(RegistryRegistration registration, String status) {
    InstanceStatus parsed = InstanceStatus.parse(status);
    if (parsed == null) {
      throw new IllegalArgumentException("status must be one of UP, DOWN, OUT_OF_SERVICE (was '" + status + "')");
    }
    Attempt attempt = attempts.get(registration.getInstanceId());
    if (attempt == null) {
      throw new IllegalArgumentException(registration.getInstanceId() + " is not registered by this application");
    }
    attempt.status = parsed;
    Registration registered = attempt.registered;
    if (registered != null) {
      registered.setStatus(parsed).block(deregisterTimeout);
    }
    log.info("{} of {} is {}", registration.getInstanceId(), registration.service(), parsed);
  }

  /**
   * The status the instance is registered with ({@code UP}, {@code DOWN}, {@code OUT_OF_SERVICE});
   * {@code DOWN} too while it is not registered.
   */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T getStatus(RegistryRegistration registration) {
    Attempt attempt = attempts.get(registration.getInstanceId());
    return (T) (isRegistered(registration) ? attempt.registered.status().name() : InstanceStatus.DOWN.name());
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
    /** The status set before the registration succeeded; null: the instance as configured. */
    volatile @Nullable InstanceStatus status;

    InstanceBody instance(RegistryRegistration registration) {
      InstanceStatus wanted = status;
      return wanted == null ? registration.instance() : wanted.applyTo(registration.instance());
    }
  }
}
