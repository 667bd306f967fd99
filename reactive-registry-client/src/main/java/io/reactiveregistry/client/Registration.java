package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceStatus;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * An instance this client keeps registered: it heartbeats at the interval the server asked for
 * and registers the instance again after every reconnect, until {@link #deregister()}.
 */
public interface Registration {
  ServiceName service();

  /** The instance as registered (ip, port, cluster, weight, enabled, metadata), its status included. */
  InstanceBody instance();

  /** The status this client registers the instance with ({@link InstanceStatus}). */
  InstanceStatus status();

  /**
   * Sets the instance's own status, as Eureka's clients do: {@code OUT_OF_SERVICE} or {@code DOWN}
   * take it out of traffic ({@code enabled: false}, the status shown in its metadata), {@code UP}
   * puts it back. The instance is registered again with it at once, and after every reconnect
   * from then on; an operator's {@code enabled} override still wins. Fails, the new status kept
   * for the next connection, when no server is reachable.
   */
  Mono<Void> setStatus(InstanceStatus status);

  /**
   * False for a persistent instance: the server checks its health itself, and it stays
   * registered when this client closes, until something deregisters it.
   */
  boolean ephemeral();

  /** {@code ip#port#cluster}. */
  String instanceId();

  /** The heartbeat interval the server returned. */
  Duration heartbeatInterval();

  /**
   * Whether the instance is registered now: false once deregistered, replaced by a later
   * registration of the same instance, or once the client is closed,
   * and, for an ephemeral instance, also while it is not registered on the client's current
   * connection (between a lost connection and its registration again on the next one, which is
   * retried with backoff until it succeeds).
   */
  boolean isActive();

  /**
   * Stops heartbeating and removes the instance from the registry. While no server can be
   * reached it fails at once with {@link RegistryUnavailableException}, the registration ended on
   * the client's side (an ephemeral instance goes with its lost connection).
   *
   * @return whether the server removed it (false: it was already gone, or this handle was replaced
   *     by a later registration of the same instance, which is the one to deregister)
   */
  Mono<Boolean> deregister();
}
