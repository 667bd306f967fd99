package io.reactiveregistry.server.transport;

import io.reactiveregistry.server.errors.EdgeRefusal;
import io.netty.buffer.ByteBuf;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.BatchRegistration;
import io.reactiveregistry.protocol.message.BatchResult;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceOverride;
import io.reactiveregistry.protocol.message.ServiceDefinition;
import io.reactiveregistry.protocol.message.ServiceDetail;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceListQuery;
import io.reactiveregistry.protocol.message.ServiceRef;
import io.reactiveregistry.protocol.message.TraceQuery;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.SetupData;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.server.audit.TraceHub;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.Results.BatchRegistered;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import io.reactiveregistry.server.wire.ServicePages;
import io.reactiveregistry.server.wire.WireViews;
import java.util.ArrayList;
import java.util.Map;
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
import io.reactiveregistry.server.core.Registry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;

/**
 * What each route does: decode the body, call the core through the runtime, build the answer.
 * Shared by every connection; the calling connection is passed in as its {@link Owner}.
 */
final class RequestHandlers {
  private static final JsonCodec json = JsonCodec.json();

  private final RegistryRuntime runtime;
  private final TraceHub trace;
  private final ServerIdentity identity;
  private final InstantSource clock;
  private final ServerMeters meters;
  private final SnapshotCache snapshots = new SnapshotCache(100_000);

  private final Supplier<String> storage;

  RequestHandlers(RegistryRuntime runtime, TraceHub trace, ServerIdentity identity, InstantSource clock,
      ServerMeters meters, Supplier<String> storage) {
    this.storage = storage;
    this.runtime = runtime;
    this.trace = trace;
    this.meters = meters;
    this.identity = identity;
    this.clock = clock;
    json.prepare(Registration.class, RegisterResult.class, InstanceRef.class, DeregisterResult.class,
        BatchRegistration.class, BatchResult.class, Heartbeat.class, Query.class, ServiceListQuery.class,
        ServiceList.class, ServiceDefinition.class, ServiceDetail.class, ServiceRef.class, InstanceOverride.class,
        InstanceBody.class, TraceQuery.class, TraceEvent.class, ServiceSnapshot.class, ServiceEvent.class,
        ServerInfo.class, ErrorBody.class, SetupData.class);
  }

  /** Answers a request-response route with the response body. */
  Object respond(Owner owner, Route route, ByteBuf data) {
    return switch (route) {
      case INSTANCE_REGISTER -> register(owner, json.decode(data, Registration.class));
      case INSTANCE_DEREGISTER -> deregister(owner, json.decode(data, InstanceRef.class));
      case INSTANCE_BATCH_REGISTER -> batchRegister(owner, json.decode(data, BatchRegistration.class));
      case SERVICE_QUERY -> query(json.decode(data, Query.class));
      case SERVICE_LIST -> list(json.decode(data, ServiceListQuery.class));
      case ADMIN_SERVICE_CREATE -> createService(owner, json.decode(data, ServiceDefinition.class));
      case ADMIN_SERVICE_UPDATE -> updateService(owner, json.decode(data, ServiceDefinition.class));
      case ADMIN_SERVICE_GET -> detail(runtime.read(r -> r.service(serviceOf(json.decode(data, ServiceRef.class)))));
      case ADMIN_SERVICE_DELETE -> deleteService(owner, json.decode(data, ServiceRef.class));
      case ADMIN_INSTANCE_UPDATE -> override(owner, json.decode(data, InstanceOverride.class), false);
      case ADMIN_INSTANCE_PATCH -> override(owner, json.decode(data, InstanceOverride.class), true);
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
    if (route == Route.ADMIN_TRACE) {
      TraceQuery query = json.decode(data, TraceQuery.class);
      return trace.subscribe(new TraceHub.Filter(
          query.namespace() == null ? null : Names.require("namespace", query.namespace()),
          query.group() == null ? null : Names.require("group", query.group()),
          query.service() == null ? null : Names.require("service", query.service())));
    }
    throw notYetServed(route);
  }

  /** Handles a fire-and-forget route; it cannot be answered, so failures are counted and dropped. */
  void fire(Owner owner, Route route, ByteBuf data) {
    Heartbeat heartbeat = json.decode(data, Heartbeat.class);
    if (heartbeat.instance() == null && heartbeat.service() == null) {
      meters.heartbeats(runtime.execute(registry -> registry.heartbeatAll(owner)));
      return;
    }
    ServiceKey key = service(heartbeat.namespace(), heartbeat.group(), heartbeat.service());
    InstanceSpec spec = WireCommands.instance("instance", heartbeat.instance());
    HeartbeatOutcome outcome = runtime.execute(registry -> registry.heartbeat(owner, key, spec));
    meters.heartbeats(1);
    if (outcome == HeartbeatOutcome.IGNORED_NOT_OWNER || outcome == HeartbeatOutcome.IGNORED_DEREGISTERED) {
      meters.heartbeatDropped();
    }
  }

  void countDroppedHeartbeat() {
    meters.heartbeatDropped();
  }

  private Object register(Owner owner, Registration body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    InstanceSpec spec = WireCommands.instance("instance", body.instance());
    boolean ephemeral = body.ephemeral() == null || body.ephemeral();
    Function<Registry, RegisterResult> command = registry -> answer(registry.register(owner, key, ephemeral, spec));
    // A persistent registration is acknowledged once committed; an ephemeral one lives in memory only.
    return ephemeral ? runtime.execute(command) : new Durable(runtime.executeDurably(command));
  }

  private static RegisterResult answer(Registered registered) {
    return new RegisterResult(registered.instanceId(), registered.revision(), registered.timings().intervalMs(),
        registered.timings().timeoutMs(), registered.timings().deleteTimeoutMs());
  }

  private BatchResult batchRegister(Owner owner, BatchRegistration body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    if (body.instances() == null) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "instances is required (an empty list deregisters all)");
    }
    List<InstanceSpec> specs = new ArrayList<>(body.instances().size());
    for (int i = 0; i < body.instances().size(); i++) {
      specs.add(WireCommands.instance("instances[" + i + "]", body.instances().get(i)));
    }
    BatchRegistered result = runtime.execute(registry -> registry.batchRegister(owner, key, specs));
    return new BatchResult(result.instanceIds(), result.revision());
  }

  private ServiceList list(ServiceListQuery body) {
    String namespace = Names.orDefault("namespace", body.namespace(), ServiceKey.DEFAULT_NAMESPACE);
    String group = body.group() == null ? null : Names.require("group", body.group());
    List<ServiceSummary> all = runtime.read(registry -> registry.list(namespace, group, body.prefix()));
    return ServicePages.page(all, body.page(), body.pageSize());
  }

  private Durable createService(Owner owner, ServiceDefinition body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    boolean ephemeral = body.ephemeral() == null || body.ephemeral();
    double threshold = body.protectThreshold() == null ? 0.0 : body.protectThreshold();
    return new Durable(runtime.executeDurably(registry -> detail(registry.createService(owner, key, ephemeral,
        threshold, body.metadata()))));
  }

  private Durable updateService(Owner owner, ServiceDefinition body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    return new Durable(runtime.executeDurably(registry -> detail(registry.updateService(owner, key, body.ephemeral(),
        body.protectThreshold(), body.metadata()))));
  }

  private Durable deleteService(Owner owner, ServiceRef body) {
    ServiceKey key = serviceOf(body);
    return new Durable(runtime.executeDurably(registry -> {
      registry.deleteService(owner, key);
      return Map.of("deleted", true);
    }));
  }

  private Durable override(Owner owner, InstanceOverride body, boolean patch) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    InstanceAddress address = WireCommands.address("instance", body.instance());
    String instanceId = InstanceSpec.instanceId(address.ip(), address.port(),
        address.cluster());
    Function<Registry, InstanceView> command = patch
        ? registry -> registry.patchInstance(owner, key, instanceId, body.enabled(), body.weight(), body.metadata())
        : registry -> registry.overrideInstance(owner, key, instanceId,
            io.reactiveregistry.server.core.InstanceOverride.replacing(body.enabled(), body.weight(),
                body.metadata()));
    return new Durable(runtime.executeDurably(registry -> WireViews.instance(command.apply(registry))));
  }

  private static ServiceKey serviceOf(ServiceRef body) {
    return service(body.namespace(), body.group(), body.service());
  }

  private static ServiceDetail detail(io.reactiveregistry.server.core.ServiceDefinition d) {
    return new ServiceDetail(d.service().namespace(), d.service().group(), d.service().service(), d.ephemeral(),
        d.protectThreshold(), d.metadata(), d.revision(), d.clusters(), d.instanceCount());
  }

  /**
   * In a persistent service, acknowledged durably: removing a persistent instance is a durable
   * change, and an answer that it is gone must not be undone by a restart. Ephemeral instances
   * live in memory only, so their deregistration never touches or waits on storage.
   */
  private Durable deregister(Owner owner, InstanceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    InstanceAddress address = WireCommands.address("instance", body.instance());
    return new Durable(runtime.executeDurablyIf(registry -> registry.persistent(key), registry -> {
      Deregistered result = registry.deregister(owner, key, address.ip(), address.port(), address.cluster());
      return new DeregisterResult(result.removed(), result.revision());
    }));
  }

  private Object query(Query body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    ViewFilter filter = ViewFilter.of(body.clusters(), body.healthyOnly());
    return new Encoded(snapshots.query(runtime, key, filter));
  }

  /** An answer already in JSON. */
  record Encoded(byte[] json) {}

  /** An answer that may be sent once what it describes is durable. */
  record Durable(CompletableFuture<?> answer) {}

  private ServerInfo serverInfo() {
    return new ServerInfo(identity.version(), Protocol.VERSION, identity.nodeId(), List.of(identity.nodeId()),
        clock.millis() - identity.startedAtMillis(), runtime.read(registry -> registry.selfPreserving()),
        storage.get());
  }

  private static ServiceKey service(String namespace, String group, String service) {
    return ServiceKey.of(namespace, group, service);
  }

  private static EdgeRefusal notYetServed(Route route) {
    return new EdgeRefusal(ErrorCode.UNKNOWN_ROUTE, "route '" + route + "' is not served by this server version");
  }
}
