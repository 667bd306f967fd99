package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.InstanceBody;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The instances this client keeps registered in one service as a batch ({@code
 * instance.batch-register}, Nacos's batch registration): the connection's whole set in that
 * service, heartbeated with one frame per interval and registered again, whole, after every
 * reconnect, until {@link #deregister()}. A later batch for the same service replaces it.
 */
public interface BatchRegistration {
  ServiceName service();

  /** The instances as registered. */
  List<InstanceBody> instances();

  /** Their ids ({@code ip#port#cluster}), as the server answered them. */
  List<String> instanceIds();

  /** The shortest heartbeat interval among the instances: one heartbeat keeps them all. */
  Duration heartbeatInterval();

  /**
   * Whether the batch is registered on the client's connection now: false once deregistered,
   * replaced, or closed, and between a lost connection and its registration again on the next.
   */
  boolean isActive();

  /**
   * Stops heartbeating and removes the batch's instances (an empty batch for the service). While
   * no server can be reached it fails at once with {@link RegistryUnavailableException}, the
   * batch ended on the client's side (its instances go with the lost connection).
   */
  Mono<Void> deregister();
}
