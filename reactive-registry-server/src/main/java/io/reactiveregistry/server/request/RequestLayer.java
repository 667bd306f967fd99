package io.reactiveregistry.server.request;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.BatchRegistration;
import io.reactiveregistry.protocol.message.BatchResult;
import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.protocol.message.CatalogQuery;
import io.reactiveregistry.protocol.message.ConnectionList;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.Heartbeat;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceDetails;
import io.reactiveregistry.protocol.message.InstanceOverride;
import io.reactiveregistry.protocol.message.InstanceRef;
import io.reactiveregistry.protocol.message.MemberChange;
import io.reactiveregistry.protocol.message.MemberList;
import io.reactiveregistry.protocol.message.NamespaceList;
import io.reactiveregistry.protocol.message.NamespaceSummary;
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
import io.reactiveregistry.protocol.message.ServiceSubscribers;
import io.reactiveregistry.protocol.message.SetupData;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceHistory;
import io.reactiveregistry.protocol.message.TraceHistoryQuery;
import io.reactiveregistry.protocol.message.TraceQuery;
import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.reactiveregistry.server.audit.AuditHistory;
import io.reactiveregistry.server.audit.TraceHub;
import io.reactiveregistry.server.catalog.CatalogHub;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.cluster.ClusterStatus;
import io.reactiveregistry.server.cluster.MembershipRules;
import io.reactiveregistry.server.core.ChangeCause;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.HeartbeatFigures;
import io.reactiveregistry.server.core.InstanceAddress;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.core.Outcome.Counted;
import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import io.reactiveregistry.server.core.Outcome.Refused;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.Results;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ServiceView;
import io.reactiveregistry.server.core.TraceContext;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.errors.ErrorTable;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.push.DrainLoop;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.replication.ReplicaRequest;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Principal;
import io.reactiveregistry.server.tracing.RequestSpan;
import io.reactiveregistry.server.tracing.Tracing;
import io.reactiveregistry.server.wire.CommandDecoder;
import io.reactiveregistry.server.wire.OutcomeEncoder;
import io.reactiveregistry.server.wire.ServicePages;
import io.reactiveregistry.server.wire.WireViews;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The one way in: every door (RSocket over TCP and WebSocket, HTTP's {@code POST /api/v1/<route>},
 * its reads and its event streams) hands a request here as its caller's principal, its route and
 * its body. The body is decoded once into a typed request (a command route's into a core
 * {@code Command} by {@link CommandDecoder}); the route's permission is checked against the
 * {@link PermissionTable} on the namespace the request names; the command is executed by the
 * runtime, or the read answered from it; and the outcome, or any refusal, is rendered as an
 * {@link Answer} through the error table and counted by route. A door only frames what it gets.
 */
public final class RequestLayer {
  private static final Logger log = LoggerFactory.getLogger(RequestLayer.class);
  private static final JsonCodec json = JsonCodec.json();

  /** A kept heartbeat's answers, encoded once: heartbeats are the most frequent request. */
  private static final Answer REFRESHED = Answer.json(Map.of("outcome", HeartbeatOutcome.REFRESHED.name()));
  private static final Answer RECREATED = Answer.json(Map.of("outcome", HeartbeatOutcome.RECREATED.name()));

  /** How long a change stays in the recent changes a polling client is sent: Eureka's three minutes. */
  static final long RECENT_CHANGES_MILLIS = 180_000;
  private static final int MAX_RECENT_CHANGES = 200_000;
  /** A catalog subscriber with more services waiting than this is sent one fresh snapshot instead. */
  static final int MAX_CATALOG_PENDING = 1_000;
  /** How many catalog changes are kept for catalog subscriptions that resume. */
  static final int CATALOG_HISTORY = 10_000;

  private final RegistryRuntime runtime;
  private final TraceHub trace;
  private final Watchers watchers;
  private final ServerIdentity identity;
  private final InstantSource clock;
  private final ServerMeters meters;
  private final SnapshotCache snapshots = new SnapshotCache(100_000);
  private final Supplier<String> storage;
  private final Access access;
  private final PermissionTable permissions;
  private final Replication replication;
  private final Connections connections = new Connections();
  private final AtomicLong sessionIds = new AtomicLong();
  /**
   * What HTTP callers register belongs to no connection: one session stands for all of them and is
   * never released, so an ephemeral instance registered over HTTP lives by its heartbeats, as
   * Eureka's instances live by their renewals.
   */
  private final Session http = new Session(Owner.shared(-1, "http"));
  /** The same for Eureka's clients: their instances live by their renewals, and the trail names the door. */
  private final Session eureka = new Session(Owner.shared(-2, "eureka"));
  /** And for Nacos's HTTP clients (its Open API), whose instances live by their beats. */
  private final Session nacosHttp = new Session(Owner.shared(-3, "nacos-http"));
  private final CatalogReads catalogs;
  private final ViewFeeds feeds;
  private final CatalogHub catalogHub;
  private final Tracing tracing;

  /** @param storage the state of durable storage for {@code server.info}: OK, IN_MEMORY or FAILED: ... */
  public RequestLayer(RegistryRuntime runtime, TraceHub trace, ServerIdentity identity, InstantSource clock,
      ServerMeters meters, Supplier<String> storage, Access access, Replication replication, Tracing tracing) {
    this.replication = replication;
    this.tracing = tracing;
    this.storage = storage;
    this.access = access;
    this.permissions = new PermissionTable(access);
    this.runtime = runtime;
    this.trace = trace;
    this.meters = meters;
    this.identity = identity;
    this.clock = clock;
    this.catalogs = new CatalogReads(runtime, clock, RECENT_CHANGES_MILLIS, MAX_RECENT_CHANGES);
    this.feeds = new ViewFeeds(runtime, Schedulers.parallel());
    this.watchers = new Watchers(clock);
    this.catalogHub = new CatalogHub(runtime, identity.nodeId(), MAX_CATALOG_PENDING, CATALOG_HISTORY,
        Schedulers.parallel());
    json.prepare(Registration.class, RegisterResult.class, InstanceRef.class, DeregisterResult.class,
        BatchRegistration.class, BatchResult.class, Heartbeat.class, Query.class, ServiceListQuery.class,
        ServiceList.class, ServiceDefinition.class, ServiceDetail.class, ServiceRef.class, InstanceOverride.class,
        InstanceBody.class, TraceQuery.class, TraceEvent.class, ServiceSnapshot.class, ServiceEvent.class,
        ServerInfo.class, ErrorBody.class, SetupData.class, InstanceDetails.class, ConnectionList.class,
        CatalogQuery.class, CatalogEvent.class, TraceHistoryQuery.class, TraceHistory.class,
        ServiceSubscribers.class, NamespaceList.class);
  }

  // ---- sessions ----

  /** A new connection's session, labelled {@code client@address[principal]} for people. */
  public Session open(String label) {
    return new Session(new Owner(sessionIds.incrementAndGet(), label));
  }

  /** Lists an open session for {@code admin.connections}, with what its door knows of it. */
  public void listed(Session session, Connections.Listing listing) {
    connections.opened(session, listing);
  }

  /**
   * The ephemeral instances a session owns now: none once another member took over each of them
   * (its client registered them again there), when closing the connection releases nothing.
   */
  public int owned(Session session) {
    return runtime.read(registry -> registry.ownedBy(session.owner));
  }

  /** The ephemeral instances a session owns now, to ask later who holds them ({@link #heldHereBy}). */
  public Holdings holdings(Session session) {
    return new Holdings(runtime.read(registry -> registry.ownedAddresses(session.owner)));
  }

  /**
   * The id of a session here ({@link Session#id}) that owns one of {@code holdings} now; -1 when
   * none does (nobody, or other members' connections).
   */
  public long heldHereBy(Holdings holdings) {
    return runtime.read(registry -> {
      for (InstanceAddress address : holdings.addresses) {
        Owner owner = registry.ownerOf(address);
        if (owner != null && !owner.isPeer()) {
          return owner.id();
        }
      }
      return -1L;
    });
  }

  /** Unlists a closed connection's session and releases every ephemeral instance it still owns: how many. */
  public int release(Session session) {
    connections.closed(session);
    return ((Counted) runtime.execute(new Command.Release(session.owner))).count();
  }

  /** The session every HTTP caller shares; never released. */
  public Session http() {
    return http;
  }

  /** The server's clock, for a door that reads a time relative to now (a history's "since 1h"). */
  public InstantSource clock() {
    return clock;
  }

  /** The session every Eureka client shares; never released. */
  public Session eureka() {
    return eureka;
  }

  /** The session every caller of Nacos's HTTP Open API shares; never released. */
  public Session nacosHttp() {
    return nacosHttp;
  }

  // ---- request-response routes ----

  /** Whether HTTP may call {@code route} with a POST: request-response routes, and heartbeats (answered there). */
  public static boolean callableOverHttp(Route route) {
    return route.interaction() == Interaction.REQUEST_RESPONSE || route == Route.INSTANCE_HEARTBEAT;
  }

  /**
   * Answers a request-response route: a command once it may be answered (a durable one once
   * committed), a read at once; and a heartbeat, for a door that answers one (HTTP). Never fails:
   * a refusal is an {@link Answer.Refused}.
   */
  public Mono<Answer> call(Session session, @Nullable Principal principal, Route route, ByteBuf body) {
    return call(session, principal, route, body, null);
  }

  /**
   * {@link #call}, in the caller's trace: the request's span (and its {@code decode} and
   * {@code commit} stages) is a child of {@code caller} when tracing is on. Heartbeats are not traced:
   * they are most of the traffic and change nothing a trace would follow.
   */
  public Mono<Answer> call(Session session, @Nullable Principal principal, Route route, ByteBuf body,
      @Nullable TraceParent caller) {
    if (route == Route.INSTANCE_HEARTBEAT) {
      return Mono.just(beat(session, principal, body));
    }
    long start = System.nanoTime();
    RequestSpan span = tracing.request(route, caller, start);
    Mono<Answer> answer;
    try {
      if (route == Route.SERVICE_QUERY) {
        answer = query(principal, json.decode(body, Query.class), start);
      } else if (route == Route.ADMIN_MEMBERS_ADD || route == Route.ADMIN_MEMBERS_REMOVE
          || route == Route.ADMIN_MEMBERS_REPLACE) {
        answer = members(principal, route, json.decode(body, MemberChange.class), start);
      } else if (!CommandDecoder.decodes(route)) {
        answer = Mono.just(counted(route, start, read(principal, route, body)));
      } else {
        Command command = CommandDecoder.decode(route, session.owner, body);
        span.stage("decode", start, System.nanoTime());
        answer = submitted(route, start, span, authorized(principal, route, command));
      }
    } catch (RuntimeException | Error e) { // an Error too: only the contract's JSON reaches a client
      answer = Mono.just(counted(route, start, Answer.refusal(e)));
    }
    return traced(span, answer);
  }

  /** {@code answer}, ending {@code span} when it is given (or the caller goes away first). */
  private static Mono<Answer> traced(RequestSpan span, Mono<Answer> answer) {
    if (span == RequestSpan.NONE) {
      return answer;
    }
    return answer.doOnNext(done -> span.end(done instanceof Answer.Refused refused ? refused.error().code() : null))
        .doOnCancel(() -> span.end(null));
  }

  /**
   * {@code instance.register} from a typed body, for a door that builds it from another protocol
   * (Eureka's): decoded, checked and answered exactly as {@link #call} does, without a JSON round trip.
   */
  public Mono<Answer> register(Session session, @Nullable Principal principal, Registration registration) {
    long start = System.nanoTime();
    try {
      return submitted(Route.INSTANCE_REGISTER, start, RequestSpan.NONE, authorized(principal, Route.INSTANCE_REGISTER,
          CommandDecoder.register(session.owner, registration)));
    } catch (RuntimeException | Error e) {
      return Mono.just(counted(Route.INSTANCE_REGISTER, start, Answer.refusal(e)));
    }
  }

  /** A command run, answered once it may be (a durable one once committed), counted by {@code route}. */
  private Mono<Answer> submitted(Route route, long start, RequestSpan span, Command command) {
    long submitted = System.nanoTime();
    TraceContext trace = span.context();
    RegistryRuntime.Submitted submission = runtime.submit(trace == null ? command : new Command.Traced(trace, command));
    CompletableFuture<Outcome> outcome = submission.outcome();
    if (!submission.durable()) { // in memory only: answered at once
      span.stage("apply", submitted, System.nanoTime());
      try {
        return Mono.just(counted(route, start, Answer.of(outcome.join())));
      } catch (RuntimeException e) {
        return Mono.just(counted(route, start, Answer.refusal(e.getCause() != null ? e.getCause() : e)));
      }
    }
    if (span != RequestSpan.NONE) { // the durable change's way through the Raft group, until committed and applied
      outcome.whenComplete((done, error) -> span.stage("commit", submitted, System.nanoTime()));
    }
    return Mono.fromFuture(outcome, true)
        .map(done -> counted(route, start, Answer.of(done)))
        .onErrorResume(error -> Mono.just(counted(route, start, Answer.refusal(error))));
  }

  /** {@code service.list}'s page, typed, for a door that renders it its own way; refused by throwing. */
  public ServiceList serviceList(@Nullable Principal principal, ServiceListQuery query) {
    return measured(Route.SERVICE_LIST, () -> services(principal, query));
  }

  /**
   * A service's view as it is now, typed ({@code service.query}'s permission and filters); a
   * service that does not exist is an empty view, as Nacos answers it. Refused by throwing.
   */
  public ServiceSnapshot snapshot(@Nullable Principal principal, Query query) {
    return measured(Route.SERVICE_QUERY, () -> {
      ServiceKey key = service(query.namespace(), query.group(), query.service());
      permissions.check(principal, Route.SERVICE_QUERY, key.namespace());
      ViewFilter filter = filter(query);
      return runtime.read(registry -> WireViews.snapshot(registry.view(key, filter)));
    });
  }

  /**
   * {@code service.query}: the view now, or, with {@code consistent}, once this member has caught
   * up with what the cluster had committed when the query arrived (checked and permitted first,
   * so that a refused query asks the leader nothing).
   */
  private Mono<Answer> query(@Nullable Principal principal, Query query, long start) {
    if (!Boolean.TRUE.equals(query.consistent())) {
      return Mono.just(counted(Route.SERVICE_QUERY, start, new Answer.Served(query(principal, query))));
    }
    query(principal, query); // refuses a query that is not valid or not permitted, before waiting
    return caughtUp(() -> counted(Route.SERVICE_QUERY, start, new Answer.Served(query(principal, query))))
        .onErrorResume(error -> Mono.just(counted(Route.SERVICE_QUERY, start, Answer.refusal(error))));
  }

  /**
   * {@code admin.members.add} and {@code admin.members.remove}: checked here (the rules name the
   * field), made by the group, answered with the members once committed. What this member hears
   * from (itself and the peers whose streams it follows) is what the majority rule counts.
   */
  private Mono<Answer> members(@Nullable Principal principal, Route route, MemberChange change, long start) {
    permissions.check(principal, route, null);
    ClusterConfig cluster = replication.members();
    if (!cluster.clustered()) {
      throw new EdgeRefusal(ErrorCode.NOT_FOUND, "this server is not a cluster member: it has no members to change "
          + "(start members with --node-id and --members)");
    }
    CompletableFuture<List<ClusterConfig.Member>> changed;
    try {
      changed = switch (route) {
        case ADMIN_MEMBERS_ADD -> runtime.addMember(MembershipRules.addition(cluster, change.member(), membersUp()));
        case ADMIN_MEMBERS_REMOVE -> runtime.removeMember(MembershipRules.removal(cluster, change.node(), membersUp()));
        default -> replaced(cluster, change);
      };
    } catch (IllegalArgumentException e) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, e.getMessage());
    }
    return Mono.fromFuture(changed, true)
        .map(members -> counted(route, start, Answer.json(new MemberList(
            members.stream().map(ClusterConfig.Member::toString).toList()))))
        .onErrorResume(error -> Mono.just(counted(route, start, Answer.refusal(error))));
  }

  /** The members this one hears from, itself included: who a membership change can count on. */
  private List<String> membersUp() {
    List<String> up = new ArrayList<>(replication.connectedPeers());
    up.add(replication.members().nodeId());
    return up;
  }

  /**
   * {@code admin.members.replace}: the new member added first (it catches up and votes), then the
   * old one removed, each through Raft's own configuration change. Adding first never leaves the
   * group smaller than it was, so a replacement of a dead member needs only what the removal of a
   * live one would. Both are checked before anything changes; the removal is checked again
   * against the membership the addition committed.
   */
  private CompletableFuture<List<ClusterConfig.Member>> replaced(ClusterConfig cluster, MemberChange change) {
    MembershipRules.Replacement replacement = MembershipRules.replacement(cluster, change.node(), change.member(),
        membersUp());
    ClusterConfig.Member added = replacement.added();
    String old = replacement.removed();
    return runtime.addMember(added).thenCompose(members -> {
      try {
        List<String> nowUp = membersUp();
        nowUp.add(added.id()); // it has just caught up with the leader to be added
        return runtime.removeMember(MembershipRules.removal(cluster.withMembers(members), old, nowUp));
      } catch (IllegalArgumentException e) {
        return CompletableFuture.failedFuture(new EdgeRefusal(ErrorCode.INVALID_PARAM, "'" + added.id()
            + "' was added, and '" + old + "' is still a member: " + e.getMessage()));
      }
    });
  }

  /** {@code answer}, computed once this member holds what the cluster had committed when asked. */
  private <T> Mono<T> caughtUp(Supplier<T> answer) {
    return Mono.fromFuture(runtime::caughtUp, true).then(Mono.fromSupplier(answer));
  }

  /** {@link #view}, answered as a linearizable read (HTTP's {@code ?consistent=true}). */
  public Mono<Answer> consistentView(@Nullable Principal principal, Query query) {
    Answer checked = view(principal, query); // a refusal at once, without asking the leader
    if (checked instanceof Answer.Refused) {
      return Mono.just(checked);
    }
    return caughtUp(() -> view(principal, query)).onErrorResume(error -> Mono.just(Answer.refusal(error)));
  }

  /** {@code service.list} from a typed query (HTTP's {@code GET /api/v1/services}). */
  public Answer list(@Nullable Principal principal, ServiceListQuery query) {
    long start = System.nanoTime();
    try {
      return counted(Route.SERVICE_LIST, start, Answer.json(services(principal, query)));
    } catch (RuntimeException e) {
      return counted(Route.SERVICE_LIST, start, Answer.refusal(e));
    }
  }

  /** {@code namespace.list} for a door that has no body to decode (HTTP's {@code GET /api/v1/namespaces}). */
  public Answer namespaceList(@Nullable Principal principal) {
    long start = System.nanoTime();
    try {
      return counted(Route.NAMESPACE_LIST, start, Answer.json(namespaces(principal)));
    } catch (RuntimeException e) {
      return counted(Route.NAMESPACE_LIST, start, Answer.refusal(e));
    }
  }

  /**
   * A service's view as a snapshot, {@code NOT_FOUND} when the service does not exist (HTTP's
   * {@code GET /api/v1/services/{namespace}/{group}/{service}}); {@code service.query}'s permission.
   */
  public Answer view(@Nullable Principal principal, Query query) {
    long start = System.nanoTime();
    try {
      ServiceKey key = service(query.namespace(), query.group(), query.service());
      permissions.check(principal, Route.SERVICE_QUERY, key.namespace());
      ViewFilter filter = filter(query);
      ServiceView view = runtime.read(registry -> registry.view(key, filter));
      if (!view.exists()) {
        throw new EdgeRefusal(ErrorCode.NOT_FOUND, "service " + key + " does not exist");
      }
      return counted(Route.SERVICE_QUERY, start, Answer.json(WireViews.snapshot(view)));
    } catch (RuntimeException e) {
      return counted(Route.SERVICE_QUERY, start, Answer.refusal(e));
    }
  }

  /**
   * Every service of a namespace and group, unfiltered, at one revision (Eureka's full fetch);
   * {@code service.list}'s permission. Refused by throwing.
   */
  public Catalog catalog(@Nullable Principal principal, @Nullable String namespace, @Nullable String group) {
    return measured(Route.SERVICE_LIST, () -> {
      Scope scope = scope(namespace, group);
      permissions.check(principal, Route.SERVICE_LIST, scope.namespace());
      return catalogs.catalog(scope.namespace(), scope.group());
    });
  }

  /**
   * The catalog and the changes to it of the last three minutes, read as one cut (Eureka's delta
   * fetch); {@code service.list}'s permission. Refused by throwing.
   */
  public Catalog.Delta delta(@Nullable Principal principal, @Nullable String namespace, @Nullable String group) {
    return measured(Route.SERVICE_LIST, () -> {
      Scope scope = scope(namespace, group);
      permissions.check(principal, Route.SERVICE_LIST, scope.namespace());
      return catalogs.delta(scope.namespace(), scope.group());
    });
  }

  /** A typed read, counted by {@code route} as served or refused; a refusal is thrown. */
  private <T> T measured(Route route, Supplier<T> read) {
    long start = System.nanoTime();
    try {
      T value = read.get();
      meters.request(route, start, null);
      return value;
    } catch (RuntimeException e) {
      meters.request(route, start, ErrorTable.of(e).code());
      throw e;
    }
  }

  /**
   * An instance's own client amending what views show of it (Eureka's status and metadata calls):
   * {@code patch} as {@code admin.instance.patch} applies it, but with {@code instance.register}'s
   * permission, write, not admin: the client changes its own instance, as Eureka lets it.
   */
  public Mono<Answer> amend(Session session, @Nullable Principal principal, InstanceOverride patch) {
    long start = System.nanoTime();
    try {
      Command command = CommandDecoder.decode(Route.ADMIN_INSTANCE_PATCH, session.owner,
          Unpooled.wrappedBuffer(json.encode(patch)));
      return submitted(Route.ADMIN_INSTANCE_PATCH, start, RequestSpan.NONE,
          authorized(principal, Route.INSTANCE_REGISTER, command));
    } catch (RuntimeException | Error e) {
      return Mono.just(counted(Route.ADMIN_INSTANCE_PATCH, start, Answer.refusal(e)));
    }
  }

  /**
   * The same client lifting what it amended: the override of {@code enabled} and of the metadata
   * keys named stop (Eureka's {@code DELETE .../status}); the instance is named by {@code instance}'s
   * address as in {@code admin.instance.patch}, whose other fields are not read.
   */
  public Mono<Answer> restore(Session session, @Nullable Principal principal, InstanceOverride instance,
      List<String> metadataKeys) {
    long start = System.nanoTime();
    try {
      Command.PatchInstance named = (Command.PatchInstance) CommandDecoder.decode(Route.ADMIN_INSTANCE_PATCH,
          session.owner, Unpooled.wrappedBuffer(json.encode(instance)));
      Command command = new Command.RestoreEnabled(named.actor(), named.service(), named.instanceId(), metadataKeys);
      return submitted(Route.ADMIN_INSTANCE_PATCH, start, RequestSpan.NONE,
          authorized(principal, Route.INSTANCE_REGISTER, command));
    } catch (RuntimeException | Error e) {
      return Mono.just(counted(Route.ADMIN_INSTANCE_PATCH, start, Answer.refusal(e)));
    }
  }

  /**
   * Refuses, by throwing, a caller that may not read what names no service and is no route (the
   * metrics, the cluster's state): with credentials configured, any principal may.
   */
  public void requirePrincipal(@Nullable Principal principal) {
    permissions.checkPrincipal(principal);
  }

  // ---- heartbeats ----

  /**
   * Applies a heartbeat at once (ephemeral state only), counting it; a heartbeat that changed
   * nothing because it was not the caller's to give, or was refused, is counted as dropped. Its
   * answer, for a door that can answer (HTTP); over RSocket it is fire-and-forget and the door
   * drops it.
   */
  public Answer beat(Session session, @Nullable Principal principal, ByteBuf body) {
    Command heartbeat;
    Outcome outcome;
    try {
      heartbeat = session.heartbeats.decode(session.owner, body);
      if (heartbeat instanceof Command.HeartbeatAll && session.owner.isShared()) {
        // One owner holds every HTTP caller's instances: "all of mine" would be all of theirs.
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "instance is required: over HTTP a heartbeat names the "
            + "instance it keeps alive (service, and instance's ip, port and cluster)");
      }
      outcome = runtime.execute(authorized(principal, Route.INSTANCE_HEARTBEAT, heartbeat));
    } catch (RuntimeException | Error e) {
      meters.heartbeatDropped();
      log.debug("dropped a heartbeat from {}: {}", session, e.getMessage());
      return Answer.refusal(e);
    }
    if (outcome instanceof Counted all) { // only over RSocket, which answers no heartbeat
      meters.heartbeats(all.count());
      return REFRESHED;
    }
    return heartbeatAnswer(heartbeat, outcome);
  }

  /**
   * A renewal of one instance by its id (Eureka's {@code PUT /apps/{app}/{id}}): refreshes it, and
   * re-creates nothing: one this server does not hold, or holds as another member's copy, is
   * {@code NOT_FOUND}, so that its client registers it again here. {@code instance.heartbeat}'s
   * permission; counted as a heartbeat.
   */
  public Answer renew(Session session, @Nullable Principal principal, ServiceRef service, String instanceId) {
    Command renewal;
    Outcome outcome;
    try {
      renewal = new Command.Renew(session.owner, service(service.namespace(), service.group(), service.service()),
          instanceId);
      outcome = runtime.execute(authorized(principal, Route.INSTANCE_HEARTBEAT, renewal));
    } catch (RuntimeException | Error e) {
      meters.heartbeatDropped();
      return Answer.refusal(e);
    }
    return heartbeatAnswer(renewal, outcome);
  }

  /**
   * The same renewal, the instance named by its address (Nacos's light beat): checked as a
   * registration checks it, and never re-creating it.
   */
  public Answer renew(Session session, @Nullable Principal principal, ServiceRef service, InstanceBody instance) {
    String id;
    try {
      InstanceSpec spec = InstanceSpec.of("instance", instance.ip(), instance.port(), instance.cluster(), null, null,
          null);
      id = spec.instanceId();
    } catch (RuntimeException e) {
      meters.heartbeatDropped();
      return Answer.refusal(e);
    }
    return renew(session, principal, service, id);
  }

  /** A heartbeat's or renewal's outcome, counted, as its door answers it. */
  private Answer heartbeatAnswer(Command heartbeat, Outcome outcome) {
    if (outcome instanceof Refused refused) {
      meters.heartbeatDropped();
      log.debug("dropped {}: {}", heartbeat, refused.message());
      return Answer.of(refused);
    }
    HeartbeatOutcome beat = (HeartbeatOutcome) outcome;
    meters.heartbeats(1);
    if (beat != HeartbeatOutcome.REFRESHED && beat != HeartbeatOutcome.RECREATED) {
      meters.heartbeatDropped();
    }
    return switch (beat) {
      case REFRESHED -> REFRESHED;
      case RECREATED -> RECREATED;
      case IGNORED_PERSISTENT -> Answer.refusal(new EdgeRefusal(ErrorCode.INVALID_PARAM,
          "the instance is persistent: the server checks its health itself, it takes no heartbeats"));
      case IGNORED_NOT_OWNER -> Answer.refusal(new EdgeRefusal(ErrorCode.FORBIDDEN,
          "the instance was registered on an RSocket connection, which keeps it alive"));
      // 404, as for an instance this node does not know: the caller registers it here, which takes it over.
      case IGNORED_OTHER_NODE -> Answer.refusal(new EdgeRefusal(ErrorCode.NOT_FOUND,
          "the instance was registered on another member of the cluster: register it again here"));
      case IGNORED_DEREGISTERED -> Answer.refusal(new EdgeRefusal(ErrorCode.NOT_FOUND,
          "the instance was deregistered: register it again"));
      case IGNORED_UNKNOWN -> Answer.refusal(new EdgeRefusal(ErrorCode.NOT_FOUND,
          "no such instance here: register it again"));
    };
  }

  /** Counts a heartbeat a door dropped before it reached the layer (an unreadable frame). */
  public void countDroppedHeartbeat() {
    meters.heartbeatDropped();
  }

  // ---- request-stream routes ----

  /**
   * Opens a request-stream route, its events encoded; refused by throwing (a door answers the
   * refusal its own way). {@code eventLoop}: where the stream's events are written from (null: the
   * thread of each change).
   */
  public Flux<byte[]> stream(Watcher watcher, @Nullable Principal principal, Route route, ByteBuf body,
      @Nullable DrainLoop eventLoop) {
    return switch (route) {
      case SERVICE_SUBSCRIBE -> subscribe(watcher, principal, json.decode(body, Query.class), eventLoop);
      case CATALOG_SUBSCRIBE -> catalog(principal, json.decode(body, CatalogQuery.class));
      case ADMIN_TRACE -> trace(principal, json.decode(body, TraceQuery.class));
      case ADMIN_BACKUP -> backup(principal);
      case CLUSTER_REPLICATE -> opened(route, System.nanoTime(), () -> {
        String peer = Names.require("node", json.decode(body, ReplicaRequest.class).node());
        permissions.check(principal, route, null);
        return replication.feed(peer);
      });
      default -> throw notYetServed(route);
    };
  }

  /** {@code service.subscribe} from a typed query (HTTP's watch builds it from the URL). */
  public Flux<byte[]> subscribe(Watcher watcher, @Nullable Principal principal, Query query,
      @Nullable DrainLoop eventLoop) {
    return opened(Route.SERVICE_SUBSCRIBE, System.nanoTime(), () -> {
      ServiceKey key = service(query.namespace(), query.group(), query.service());
      permissions.check(principal, Route.SERVICE_SUBSCRIBE, key.namespace());
      ViewFilter filter = filter(query);
      return watchers.watched(key, watcher, principal == null ? null : principal.name(), filter,
          runtime.subscribe(key, filter, resume(query), eventLoop, Boolean.TRUE.equals(query.coalesce())));
    });
  }

  /**
   * {@code service.subscribe} as whole snapshots: the view now, then the view again after each
   * change (changes close together may come as one), for doors whose clients expect full lists
   * (Nacos's). Subscribers of the same view share one feed. Refused by throwing.
   */
  public Flux<ServiceSnapshot> views(Watcher watcher, @Nullable Principal principal, Query query) {
    return measured(Route.SERVICE_SUBSCRIBE, () -> {
      ServiceKey key = service(query.namespace(), query.group(), query.service());
      permissions.check(principal, Route.SERVICE_SUBSCRIBE, key.namespace());
      ViewFilter filter = filter(query);
      return watchers.watched(key, watcher, principal == null ? null : principal.name(), filter,
          feeds.feed(key, filter));
    });
  }

  /**
   * {@code catalog.subscribe} from a typed query (HTTP's catalog watch builds it from the URL): the
   * services of a namespace, and of a group and a name prefix when given, as a stream.
   */
  public Flux<byte[]> catalog(@Nullable Principal principal, CatalogQuery query) {
    return opened(Route.CATALOG_SUBSCRIBE, System.nanoTime(), () -> {
      String namespace = Names.orDefault("namespace", query.namespace(), ServiceKey.DEFAULT_NAMESPACE);
      String group = query.group() == null ? null : Names.require("group", query.group());
      String prefix = query.prefix();
      if (prefix != null && !prefix.chars().allMatch(c -> Names.isNameChar((char) c))) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "prefix may contain only what a service name may");
      }
      permissions.check(principal, Route.CATALOG_SUBSCRIBE, namespace);
      return catalogHub.subscribe(new CatalogHub.Filter(namespace, group, prefix), query.sinceRevision(),
          query.node());
    });
  }

  /** How many catalog streams are open. */
  public int catalogSubscribers() {
    return catalogHub.subscriberCount();
  }

  /** {@code admin.trace} from a typed query: admin on its namespace, or on every one when it names none. */
  public Flux<byte[]> trace(@Nullable Principal principal, TraceQuery query) {
    return opened(Route.ADMIN_TRACE, System.nanoTime(), () -> {
      TraceHub.Filter filter = new TraceHub.Filter(
          query.namespace() == null ? null : Names.require("namespace", query.namespace()),
          query.group() == null ? null : Names.require("group", query.group()),
          query.service() == null ? null : Names.require("service", query.service()));
      permissions.check(principal, Route.ADMIN_TRACE, filter.namespace());
      return trace.subscribe(filter);
    });
  }

  /**
   * {@code admin.trace.query}: the audit trail this member kept, by the query's filters; admin on
   * its namespace, or on every one when it names none. Refused by throwing.
   */
  public TraceHistory history(@Nullable Principal principal, TraceHistoryQuery query) {
    return measured(Route.ADMIN_TRACE_QUERY, () -> {
      String namespace = query.namespace() == null ? null : Names.require("namespace", query.namespace());
      permissions.check(principal, Route.ADMIN_TRACE_QUERY, namespace);
      int limit = query.limit() == null ? AuditHistory.DEFAULT_LIMIT : query.limit();
      if (limit < 1 || limit > AuditHistory.MAX_LIMIT) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "limit must be between 1 and " + AuditHistory.MAX_LIMIT);
      }
      if (query.cause() != null && !CAUSES.contains(query.cause())) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "cause must be one of " + CAUSES);
      }
      if (query.since() != null && query.until() != null && query.until() <= query.since()) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "until must be after since");
      }
      return trace.history().query(new AuditHistory.Query(namespace,
          query.group() == null ? null : Names.require("group", query.group()),
          query.service() == null ? null : Names.require("service", query.service()),
          query.instanceId(), query.cause(), query.principal(), query.since(), query.until(), limit));
    });
  }

  /** The causes a history query may name. */
  private static final List<String> CAUSES =
      java.util.Arrays.stream(ChangeCause.values()).map(Enum::name).toList();

  /**
   * {@code admin.backup}: the backup file's bytes, in pieces of at most {@link #BACKUP_PIECE}
   * bytes (one payload each, well under a frame's limit); admin on every namespace. The copy is
   * taken once this member has caught up with the cluster, so it holds every write acknowledged
   * before the request.
   */
  public Flux<byte[]> backup(@Nullable Principal principal) {
    return opened(Route.ADMIN_BACKUP, System.nanoTime(), () -> {
      permissions.check(principal, Route.ADMIN_BACKUP, null);
      return Mono.fromFuture(runtime::backup).flatMapIterable(RequestLayer::pieces);
    });
  }

  static final int BACKUP_PIECE = 64 * 1024;

  private static List<byte[]> pieces(byte[] file) {
    List<byte[]> pieces = new ArrayList<>(file.length / BACKUP_PIECE + 1);
    for (int from = 0; from < file.length; from += BACKUP_PIECE) {
      pieces.add(Arrays.copyOfRange(file, from, Math.min(file.length, from + BACKUP_PIECE)));
    }
    return pieces;
  }

  /** A stream, counted by route as opened or refused; a refusal is thrown. */
  private Flux<byte[]> opened(Route route, long start, Supplier<Flux<byte[]>> open) {
    try {
      Flux<byte[]> stream = open.get();
      meters.request(route, start, null);
      return stream;
    } catch (RuntimeException | Error e) {
      meters.request(route, start, ErrorTable.of(e).code());
      throw e;
    }
  }

  // ---- what each route does ----

  /**
   * The command, once its caller may run it (the route's permission on the command's namespace),
   * on behalf of its principal.
   */
  private Command authorized(@Nullable Principal principal, Route route, Command command) {
    if (access.required()) {
      if (command instanceof Command.OfService about) {
        permissions.check(principal, route, about.service().namespace());
      } else { // a heartbeat for all the connection owns: what it owns, it registered with write permission
        permissions.checkSomewhere(principal, route);
      }
    }
    return principal == null ? command : new Command.ActingFor(principal.name(), command);
  }

  /** A read route's answer. */
  private Answer read(@Nullable Principal principal, Route route, ByteBuf body) {
    return switch (route) {
      case SERVICE_QUERY -> new Answer.Served(query(principal, json.decode(body, Query.class)));
      case SERVICE_LIST -> Answer.json(services(principal, json.decode(body, ServiceListQuery.class)));
      case NAMESPACE_LIST -> Answer.json(namespaces(principal));
      case ADMIN_SERVICE_GET -> Answer.json(describe(principal, json.decode(body, ServiceRef.class)));
      case ADMIN_SERVICE_INSTANCES -> Answer.json(instances(principal, json.decode(body, ServiceRef.class)));
      case ADMIN_SERVICE_SUBSCRIBERS -> Answer.json(subscribers(principal, json.decode(body, ServiceRef.class)));
      case ADMIN_CONNECTIONS -> {
        permissions.check(principal, route, null);
        yield Answer.json(connections.list(runtime));
      }
      case ADMIN_TRACE_QUERY -> Answer.json(history(principal, json.decode(body, TraceHistoryQuery.class)));
      case SERVER_INFO -> {
        permissions.check(principal, route, null);
        yield Answer.json(serverInfo());
      }
      default -> throw notYetServed(route);
    };
  }

  /** The metrics of each request: its route, how long it took, and the code it was refused with. */
  private Answer counted(Route route, long start, Answer answer) {
    meters.request(route, start, answer instanceof Answer.Refused refused ? refused.error().code() : null);
    return answer;
  }

  /** Where a subscription resumes; null for a fresh one. */
  private static PushHub.@Nullable Resume resume(Query query) {
    if (query.consistent() != null) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "consistent is for service.query: a subscription starts "
          + "from this member's state and follows every change after it");
    }
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

  private ServiceList services(@Nullable Principal principal, ServiceListQuery body) {
    String namespace = Names.orDefault("namespace", body.namespace(), ServiceKey.DEFAULT_NAMESPACE);
    permissions.check(principal, Route.SERVICE_LIST, namespace);
    String group = body.group() == null ? null : Names.require("group", body.group());
    List<ServiceSummary> all = runtime.read(registry -> registry.list(namespace, group, body.prefix()));
    return ServicePages.page(all, body.page(), body.pageSize());
  }

  /** {@code namespace.list}: the namespaces holding services whose services the caller may list. */
  private NamespaceList namespaces(@Nullable Principal principal) {
    permissions.check(principal, Route.NAMESPACE_LIST, null);
    return new NamespaceList(runtime.read(RegistryReads::namespaces).stream()
        .filter(namespace -> permissions.allows(principal, Route.SERVICE_LIST, namespace.namespace()))
        .map(namespace -> new NamespaceSummary(namespace.namespace(), namespace.services(), namespace.instances(),
            namespace.healthyInstances()))
        .toList());
  }

  private ServiceDetail describe(@Nullable Principal principal, ServiceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    permissions.check(principal, Route.ADMIN_SERVICE_GET, key.namespace());
    return OutcomeEncoder.detail(runtime.read(registry -> registry.service(key))
        .orElseThrow(() -> new EdgeRefusal(ErrorCode.NOT_FOUND, "service " + key + " does not exist")));
  }

  /** {@code admin.service.subscribers}: who watches the service on this member (a service nobody watches: none). */
  private ServiceSubscribers subscribers(@Nullable Principal principal, ServiceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    permissions.check(principal, Route.ADMIN_SERVICE_SUBSCRIBERS, key.namespace());
    return new ServiceSubscribers(key.namespace(), key.group(), key.service(), watchers.of(key));
  }

  private InstanceDetails instances(@Nullable Principal principal, ServiceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    permissions.check(principal, Route.ADMIN_SERVICE_INSTANCES, key.namespace());
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
    permissions.check(principal, Route.SERVICE_QUERY, key.namespace());
    ViewFilter filter = filter(body);
    return snapshots.query(runtime, key, filter);
  }

  private ServerInfo serverInfo() {
    ClusterStatus cluster = identity.cluster() == null ? null : identity.cluster().get();
    List<String> members = cluster == null ? List.of(identity.nodeId())
        : cluster.members().stream().map(ClusterStatus.MemberStatus::id).toList();
    HeartbeatFigures heartbeats = runtime.read(RegistryReads::heartbeatFigures);
    return new ServerInfo(identity.version(), Protocol.VERSION, identity.nodeId(), members,
        clock.millis() - identity.startedAtMillis(), runtime.read(registry -> registry.selfPreserving()),
        storage.get(), cluster == null ? null : cluster.toInfo(),
        new ServerInfo.Heartbeats(Math.round(heartbeats.expectedPerMinute() * 10) / 10.0,
            Math.round(heartbeats.receivedPerMinute() * 10) / 10.0, heartbeats.threshold(), heartbeats.judged(),
            heartbeats.enabled()));
  }

  /** The part of the service a query asks for: clusters, health and selector, checked. */
  private static ViewFilter filter(Query query) {
    return ViewFilter.of(query.clusters(), query.healthyOnly(), query.selector());
  }

  /** A namespace and a group of it. */
  private record Scope(String namespace, String group) {}

  /** A namespace and group, defaulted and checked. */
  private static Scope scope(@Nullable String namespace, @Nullable String group) {
    return new Scope(Names.orDefault("namespace", namespace, ServiceKey.DEFAULT_NAMESPACE),
        Names.orDefault("group", group, ServiceKey.DEFAULT_GROUP));
  }

  private static ServiceKey service(String namespace, String group, String service) {
    return ServiceKey.of(namespace, group, service);
  }

  private static EdgeRefusal notYetServed(Route route) {
    return new EdgeRefusal(ErrorCode.UNKNOWN_ROUTE, "route '" + route + "' is not served by this server version");
  }
}
