package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.BatchRegistration;
import io.reactiveregistry.protocol.message.BatchResult;
import io.reactiveregistry.protocol.message.ConnectionList;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.Heartbeat;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceDetails;
import io.reactiveregistry.protocol.message.InstanceOverride;
import io.reactiveregistry.protocol.message.InstanceRef;
import io.reactiveregistry.protocol.message.Query;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.Registration;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceDefinition;
import io.reactiveregistry.protocol.message.ServiceDetail;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceListQuery;
import io.reactiveregistry.protocol.message.ServiceRef;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.SetupData;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceQuery;
import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.server.audit.TraceHub;
import io.reactiveregistry.server.cluster.ClusterStatus;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.core.Outcome.Counted;
import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import io.reactiveregistry.server.core.Outcome.Refused;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Results;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.errors.ErrorTable;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.push.DrainLoop;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.replication.ReplicaRequest;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Permission;
import io.reactiveregistry.server.security.Principal;
import io.reactiveregistry.server.wire.CommandDecoder;
import io.reactiveregistry.server.wire.OutcomeEncoder;
import io.reactiveregistry.server.wire.ServicePages;
import io.reactiveregistry.server.wire.WireViews;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

/**
 * What each route does: a command route's body becomes a {@code Command} ({@link CommandDecoder}),
 * the runtime applies it and its {@code Outcome} becomes the answer ({@link OutcomeEncoder}); read
 * and stream routes read the core through the runtime. Shared by every connection; the calling
 * connection is passed in as its {@link Owner}.
 */
final class RequestHandlers {
  private static final Logger log = LoggerFactory.getLogger(RequestHandlers.class);
  private static final JsonCodec json = JsonCodec.json();

  private final RegistryRuntime runtime;
  private final TraceHub trace;
  private final ServerIdentity identity;
  private final InstantSource clock;
  private final ServerMeters meters;
  private final SnapshotCache snapshots = new SnapshotCache(100_000);

  private final Supplier<String> storage;
  private final Access access;
  private final Replication replication;
  private final OpenConnections connections;

  RequestHandlers(RegistryRuntime runtime, TraceHub trace, ServerIdentity identity, InstantSource clock,
      ServerMeters meters, Supplier<String> storage, Access access, Replication replication,
      OpenConnections connections) {
    this.connections = connections;
    this.replication = replication;
    this.storage = storage;
    this.access = access;
    this.runtime = runtime;
    this.trace = trace;
    this.meters = meters;
    this.identity = identity;
    this.clock = clock;
    json.prepare(Registration.class, RegisterResult.class, InstanceRef.class, DeregisterResult.class,
        BatchRegistration.class, BatchResult.class, Heartbeat.class, Query.class, ServiceListQuery.class,
        ServiceList.class, ServiceDefinition.class, ServiceDetail.class, ServiceRef.class, InstanceOverride.class,
        InstanceBody.class, TraceQuery.class, TraceEvent.class, ServiceSnapshot.class, ServiceEvent.class,
        ServerInfo.class, ErrorBody.class, SetupData.class, InstanceDetails.class, ConnectionList.class);
  }

  /** A request's answer: a body to encode, JSON already encoded, or a refusal from the error table. */
  sealed interface Answer {
    record Body(Object body) implements Answer {}

    record Json(byte[] json) implements Answer {}

    record Refusal(WireError error) implements Answer {}
  }

  /**
   * Applies a command route's command ({@link CommandDecoder}): its outcome, once it may be answered
   * (a durable one once committed).
   */
  CompletableFuture<Outcome> command(Owner owner, @Nullable Principal principal, Route route, ByteBuf data) {
    return runtime.submit(authorized(principal, route, CommandDecoder.decode(route, owner, data)));
  }

  /**
   * The command, once its caller may run it (the route's permission on the command's namespace), on
   * behalf of its principal.
   */
  private Command authorized(@Nullable Principal principal, Route route, Command command) {
    if (access.required()) {
      if (command instanceof Command.OfService about) {
        access.require(principal, Permission.of(route), about.service().namespace());
      } else { // a heartbeat for all the connection owns: what it owns, it registered with write permission
        access.requireSomewhere(principal, Permission.of(route));
      }
    }
    return principal == null ? command : new Command.ActingFor(principal.name(), command);
  }

  /** The answer to a command's outcome. */
  static Answer answer(Outcome outcome) {
    return outcome instanceof Refused refused ? new Answer.Refusal(ErrorTable.of(refused))
        : new Answer.Body(OutcomeEncoder.body(outcome));
  }

  /** Answers a read route, at once. */
  Answer read(@Nullable Principal principal, Route route, ByteBuf data) {
    return switch (route) {
      case SERVICE_QUERY -> new Answer.Json(query(principal, json.decode(data, Query.class)));
      case SERVICE_LIST -> new Answer.Body(list(principal, json.decode(data, ServiceListQuery.class)));
      case ADMIN_SERVICE_GET -> new Answer.Body(describe(principal, json.decode(data, ServiceRef.class)));
      case ADMIN_SERVICE_INSTANCES -> new Answer.Body(instances(principal, json.decode(data, ServiceRef.class)));
      case ADMIN_CONNECTIONS -> {
        access.require(principal, Permission.ADMIN, null); // connections cross namespaces: admin on every one
        yield new Answer.Body(connections.list(runtime));
      }
      case SERVER_INFO -> {
        access.require(principal, null, null);
        yield new Answer.Body(serverInfo());
      }
      default -> throw notYetServed(route);
    };
  }

  /** Where a subscription resumes; null for a fresh one. */
  private static PushHub.@Nullable Resume resume(Query query) {
    if (query.sinceRevision() == null) {
      if (query.node() != null) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "node is only for a resume: give sinceRevision with it");
      }
      return null;
    }
    if (query.sinceRevision() < 0) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "sinceRevision must be 0 or more");
    }
    if (query.node() == null || query.node().isEmpty()) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "node is required with sinceRevision: the node of the "
          + "SNAPSHOT or RESUMED event the revision came from");
    }
    return new PushHub.Resume(query.sinceRevision(), query.node());
  }

  /** Opens a request-stream route. */
  Flux<byte[]> stream(@Nullable Principal principal, Route route, ByteBuf data, @Nullable DrainLoop eventLoop) {
    if (route == Route.SERVICE_SUBSCRIBE) {
      Query query = json.decode(data, Query.class);
      ServiceKey key = service(query.namespace(), query.group(), query.service());
      access.require(principal, Permission.READ, key.namespace());
      return runtime.subscribe(key, ViewFilter.of(query.clusters(), query.healthyOnly()), resume(query), eventLoop,
          Boolean.TRUE.equals(query.coalesce()));
    }
    if (route == Route.ADMIN_TRACE) {
      TraceQuery query = json.decode(data, TraceQuery.class);
      TraceHub.Filter filter = new TraceHub.Filter(
          query.namespace() == null ? null : Names.require("namespace", query.namespace()),
          query.group() == null ? null : Names.require("group", query.group()),
          query.service() == null ? null : Names.require("service", query.service()));
      access.require(principal, Permission.ADMIN, filter.namespace()); // no namespace: every one
      return trace.subscribe(filter);
    }
    if (route == Route.CLUSTER_REPLICATE) {
      String peer = Names.require("node", json.decode(data, ReplicaRequest.class).node());
      access.require(principal, Permission.ADMIN, null); // internal: a peer, or an operator with admin everywhere
      return replication.feed(peer);
    }
    throw notYetServed(route);
  }

  /**
   * Applies a heartbeat at once (ephemeral state only), counting it; a heartbeat that changed
   * nothing because it was not the caller's to give, or was refused, is counted as dropped. Its
   * outcome, for a caller that can be answered (HTTP); over RSocket it is fire-and-forget.
   */
  Outcome beat(@Nullable Principal principal, Command heartbeat) {
    Outcome outcome = runtime.execute(authorized(principal, Route.INSTANCE_HEARTBEAT, heartbeat));
    if (outcome instanceof Counted all) {
      meters.heartbeats(all.count());
    } else if (outcome instanceof HeartbeatOutcome one) {
      meters.heartbeats(1);
      if (one == HeartbeatOutcome.IGNORED_NOT_OWNER || one == HeartbeatOutcome.IGNORED_DEREGISTERED) {
        meters.heartbeatDropped();
      }
    } else if (outcome instanceof Refused refused) {
      meters.heartbeatDropped();
      log.debug("dropped {}: {}", heartbeat, refused.message());
    }
    return outcome;
  }

  void countDroppedHeartbeat() {
    meters.heartbeatDropped();
  }

  private ServiceList list(@Nullable Principal principal, ServiceListQuery body) {
    String namespace = Names.orDefault("namespace", body.namespace(), ServiceKey.DEFAULT_NAMESPACE);
    access.require(principal, Permission.READ, namespace);
    String group = body.group() == null ? null : Names.require("group", body.group());
    List<ServiceSummary> all = runtime.read(registry -> registry.list(namespace, group, body.prefix()));
    return ServicePages.page(all, body.page(), body.pageSize());
  }

  private ServiceDetail describe(@Nullable Principal principal, ServiceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    access.require(principal, Permission.ADMIN, key.namespace());
    return OutcomeEncoder.detail(runtime.read(registry -> registry.service(key))
        .orElseThrow(() -> new EdgeRefusal(ErrorCode.NOT_FOUND, "service " + key + " does not exist")));
  }

  private InstanceDetails instances(@Nullable Principal principal, ServiceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    access.require(principal, Permission.ADMIN, key.namespace());
    record Read(boolean exists, long revision, List<Results.InstanceRecord> records) {}
    Read read = runtime.read(registry -> new Read(registry.exists(key), registry.serviceRevision(key),
        registry.instanceRecords(key)));
    if (!read.exists()) {
      throw new EdgeRefusal(ErrorCode.NOT_FOUND, "service " + key + " does not exist");
    }
    return new InstanceDetails(key.namespace(), key.group(), key.service(), read.revision(),
        read.records().stream().map(WireViews::detail).toList());
  }

  private byte[] query(@Nullable Principal principal, Query body) {
    if (body.sinceRevision() != null || body.node() != null || body.coalesce() != null) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "sinceRevision, node and coalesce are for service.subscribe: "
          + "service.query answers the view as it is now");
    }
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    access.require(principal, Permission.READ, key.namespace());
    ViewFilter filter = ViewFilter.of(body.clusters(), body.healthyOnly());
    return snapshots.query(runtime, key, filter);
  }

  private ServerInfo serverInfo() {
    ClusterStatus cluster = identity.cluster() == null ? null : identity.cluster().get();
    List<String> members = cluster == null ? List.of(identity.nodeId())
        : cluster.members().stream().map(ClusterStatus.MemberStatus::id).toList();
    return new ServerInfo(identity.version(), Protocol.VERSION, identity.nodeId(), members,
        clock.millis() - identity.startedAtMillis(), runtime.read(registry -> registry.selfPreserving()),
        storage.get(), cluster == null ? null : cluster.toInfo());
  }

  private static ServiceKey service(String namespace, String group, String service) {
    return ServiceKey.of(namespace, group, service);
  }

  private static EdgeRefusal notYetServed(Route route) {
    return new EdgeRefusal(ErrorCode.UNKNOWN_ROUTE, "route '" + route + "' is not served by this server version");
  }
}
