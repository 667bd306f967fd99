package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.Heartbeat;
import io.reactiveregistry.protocol.message.InstanceRef;
import io.reactiveregistry.protocol.message.Query;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.Registration;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Results.Deregistered;
import io.reactiveregistry.server.core.Results.HeartbeatOutcome;
import io.reactiveregistry.server.core.Results.Registered;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.wire.WireCommands;
import io.reactiveregistry.server.wire.WireCommands.InstanceAddress;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;

/**
 * What each route does: decode the body, call the core through the runtime, build the answer.
 * Shared by every connection; the calling connection is passed in as its {@link Owner}.
 */
final class RequestHandlers {
  private static final JsonCodec json = JsonCodec.json();

  private final RegistryRuntime runtime;
  private final ServerIdentity identity;
  private final InstantSource clock;
  private final AtomicLong droppedHeartbeats = new AtomicLong();
  private final SnapshotCache snapshots = new SnapshotCache(100_000);

  RequestHandlers(RegistryRuntime runtime, ServerIdentity identity, InstantSource clock) {
    this.runtime = runtime;
    this.identity = identity;
    this.clock = clock;
  }

  /** Answers a request-response route with the response body. */
  Object respond(Owner owner, Route route, ByteBuf data) {
    return switch (route) {
      case INSTANCE_REGISTER -> register(owner, json.decode(data, Registration.class));
      case INSTANCE_DEREGISTER -> deregister(owner, json.decode(data, InstanceRef.class));
      case SERVICE_QUERY -> query(json.decode(data, Query.class));
      case SERVER_INFO -> serverInfo();
      default -> throw notYetServed(route);
    };
  }

  /** Opens a request-stream route. */
  Flux<byte[]> stream(Route route, ByteBuf data) {
    if (route == Route.SERVICE_SUBSCRIBE) {
      Query query = json.decode(data, Query.class);
      return runtime.subscribe(service(query.namespace(), query.group(), query.service()),
          ViewFilter.of(query.clusters(), query.healthyOnly()));
    }
    throw notYetServed(route);
  }

  /** Handles a fire-and-forget route; it cannot be answered, so failures are counted and dropped. */
  void fire(Owner owner, Route route, ByteBuf data) {
    Heartbeat heartbeat = json.decode(data, Heartbeat.class);
    if (heartbeat.instance() == null && heartbeat.service() == null) {
      runtime.execute(registry -> registry.heartbeatAll(owner));
      return;
    }
    ServiceKey key = service(heartbeat.namespace(), heartbeat.group(), heartbeat.service());
    InstanceSpec spec = WireCommands.instance("instance", heartbeat.instance());
    HeartbeatOutcome outcome = runtime.execute(registry -> registry.heartbeat(owner, key, spec));
    if (outcome == HeartbeatOutcome.IGNORED_NOT_OWNER || outcome == HeartbeatOutcome.IGNORED_DEREGISTERED) {
      droppedHeartbeats.incrementAndGet();
    }
  }

  void countDroppedHeartbeat() {
    droppedHeartbeats.incrementAndGet();
  }

  long droppedHeartbeats() {
    return droppedHeartbeats.get();
  }

  private RegisterResult register(Owner owner, Registration body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    InstanceSpec spec = WireCommands.instance("instance", body.instance());
    boolean ephemeral = body.ephemeral() == null || body.ephemeral();
    Registered registered = runtime.execute(registry -> registry.register(owner, key, ephemeral, spec));
    return new RegisterResult(registered.instanceId(), registered.revision(), registered.timings().intervalMs(),
        registered.timings().timeoutMs(), registered.timings().deleteTimeoutMs());
  }

  private DeregisterResult deregister(Owner owner, InstanceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    InstanceAddress address = WireCommands.address("instance", body.instance());
    Deregistered result = runtime.execute(
        registry -> registry.deregister(owner, key, address.ip(), address.port(), address.cluster()));
    return new DeregisterResult(result.removed(), result.revision());
  }

  private Object query(Query body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    ViewFilter filter = ViewFilter.of(body.clusters(), body.healthyOnly());
    return new Encoded(snapshots.query(runtime, key, filter));
  }

  /** An answer already in JSON. */
  record Encoded(byte[] json) {}

  private ServerInfo serverInfo() {
    return new ServerInfo(identity.version(), Protocol.VERSION, identity.nodeId(), List.of(identity.nodeId()),
        clock.millis() - identity.startedAtMillis(), false);
  }

  private static ServiceKey service(String namespace, String group, String service) {
    return ServiceKey.of(namespace, group, service);
  }

  private static RequestException notYetServed(Route route) {
    return new RequestException(ErrorCode.UNKNOWN_ROUTE, "route '" + route + "' is not served by this server version");
  }
}
