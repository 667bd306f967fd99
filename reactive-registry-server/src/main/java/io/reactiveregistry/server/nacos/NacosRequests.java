package io.reactiveregistry.server.nacos;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceListQuery;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.request.Answer;
import io.reactiveregistry.server.request.Connections;
import io.reactiveregistry.server.request.Holdings;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.request.Session;
import io.reactiveregistry.server.request.Watcher;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Credential;
import io.reactiveregistry.server.security.Principal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * What a Nacos 2.x naming client asks over gRPC, translated onto the request layer: the unary
 * {@code Request.request} calls (by their payload's type) and, on the {@code requestBiStream}
 * stream, the connection's setup and the client's answers to the server's pushes. Every refusal is
 * Nacos's {@code ErrorResponse} with the registry's message; no request closes a connection (only
 * a client that does not answer whether it is alive, see {@link #tick}).
 */
final class NacosRequests implements NacosCalls {
  private static final Logger log = LoggerFactory.getLogger(NacosRequests.class);
  private static final JsonCodec json = JsonCodec.json();
  /** How long a token's principal is kept by a connection: a revoked token stops working within it. */
  private static final long PRINCIPAL_CACHE_MILLIS = 10_000;
  /** What this server tells a client it can do: persistent instances over gRPC too. */
  private static final Map<String, Boolean> ABILITIES = Map.of("supportPersistentInstanceByGrpc", true);
  private static final long KEEP_ALIVE_EVERY_MILLIS = 1_000;
  /**
   * How long a set-up connection may send nothing before it is asked whether it is alive
   * ({@code ClientDetectionRequest}, as Nacos's server asks), and how long it has to answer before
   * it is closed and its instances released. A Nacos client calls at least every 5 s when idle (its
   * health check), so 10 s of quiet is two calls missed; a client that does not answer is gone
   * 13 s after its last call, before the heartbeat timeouts (§7: unhealthy at 15 s) would have
   * marked its instances, and one that answers keeps them alive as a call does. Nacos's own
   * server asks after 20 s and waits 5 s.
   */
  static final long QUIET_MILLIS = 10_000;
  static final long ANSWER_WITHIN_MILLIS = 3_000;
  /**
   * How long what a connection told to move owns stays after it closes, for its client to register
   * it on the member it was sent to. A Nacos client closes the old connection as soon as the new one
   * is up and redoes its registrations within its redo period (3 s); past this, what is left is
   * released as a closed connection's would be.
   */
  static final long MOVE_WITHIN_MILLIS = 10_000;
  /** Views whose newest rendering is kept; past it the cache starts again. */
  private static final int MAX_RENDERINGS = 10_000;
  private static final byte[] ALL_MINE = "{}".getBytes(StandardCharsets.US_ASCII);
  private static final Set<String> SERVED = Set.of("ServerCheckRequest", "HealthCheckRequest", "InstanceRequest",
      "BatchInstanceRequest", "PersistentInstanceRequest", "ServiceQueryRequest", "SubscribeServiceRequest",
      "ServiceListRequest");

  private final RequestLayer layer;
  private final Access access;
  private final InstantSource clock;
  /** The newest rendering of each view pushed: subscribers of a view share it. */
  private final ConcurrentMap<String, Rendering> renderings = new ConcurrentHashMap<>();
  /**
   * Connections that closed after being told to move, with what they owned then and when to release
   * what they still own.
   */
  private final ConcurrentMap<NacosConnection, Moved> moved = new ConcurrentHashMap<>();

  private record Moved(Holdings owned, long releaseAt) {}

  private record Rendering(ServiceSnapshot snapshot, byte[] json) {}

  private final Counter pushes;
  private final Counter asked;
  private final Counter answered;
  private final Counter unanswered;
  private final Counter toldToMove;
  private final Counter cameBack;

  NacosRequests(RequestLayer layer, Access access, InstantSource clock, MeterRegistry meters) {
    this.layer = layer;
    this.access = access;
    this.clock = clock;
    this.pushes = Counter.builder("registry.nacos.pushes")
        .description("whole views pushed to Nacos clients (NotifySubscriberRequest)").register(meters);
    this.asked = quietChecks(meters, "asked");
    this.answered = quietChecks(meters, "answered");
    this.unanswered = quietChecks(meters, "closed");
    this.toldToMove = moves(meters, "told");
    this.cameBack = moves(meters, "came_back");
  }

  private static Counter moves(MeterRegistry meters, String outcome) {
    return Counter.builder("registry.nacos.moves").tag("outcome", outcome)
        .description("Nacos clients told to connect to another member (rebalancing), and those that came back "
            + "instead (their server list does not name that member's address; they are not told again)")
        .register(meters);
  }

  private static Counter quietChecks(MeterRegistry meters, String outcome) {
    return Counter.builder("registry.nacos.quiet.checks").tag("outcome", outcome)
        .description("quiet Nacos connections asked whether their client is alive (ClientDetectionRequest), "
            + "the answers, and those closed for not answering").register(meters);
  }

  // ---- Request.request: one call, one answer ----

  @Override
  public Mono<Payload> request(NacosConnection connection, Payload request) {
    String type = request.type();
    long now = clock.millis();
    connection.active(now);
    if (connection.refusal != null) {
      return Mono.just(connection.refusal);
    }
    if ("ServerCheckRequest".equals(type)) {
      return Mono.just(NacosJson.ok("ServerCheckResponse", null,
          Map.of("connectionId", connection.id, "supportAbilityNegotiation", true)));
    }
    if (!SERVED.contains(type)) {
      return Mono.just(NacosJson.error(NacosJson.NO_HANDLER, "no handler for request type '" + type
          + "': this server's Nacos door serves " + String.join(", ", new TreeSet<>(SERVED))));
    }
    Session session = connection.session();
    if (session == null) { // Nacos's words: its client connects again and sets the connection up first
      return Mono.just(NacosJson.error(NacosJson.UN_REGISTER, "Connection is unregistered."));
    }
    NacosMessage body;
    try {
      body = NacosJson.read(request.body());
    } catch (IOException e) {
      return Mono.just(NacosJson.error(NacosJson.BAD_GATEWAY, "the body of " + type + " is not the JSON of a "
          + type + ": " + NacosJson.problem(e)));
    }
    try {
      Principal principal = principal(connection, request.headers());
      keepAlive(connection, session, principal, now);
      return switch (type) {
        case "HealthCheckRequest" -> Mono.just(NacosJson.ok("HealthCheckResponse", body.requestId()));
        case "InstanceRequest" -> instance(session, principal, body, true);
        case "PersistentInstanceRequest" -> instance(session, principal, body, false);
        case "BatchInstanceRequest" -> batch(session, principal, body);
        case "ServiceQueryRequest" -> Mono.just(query(principal, body));
        case "SubscribeServiceRequest" -> Mono.just(subscribe(connection, principal, body));
        default -> Mono.just(list(principal, body)); // ServiceListRequest
      };
    } catch (RuntimeException e) {
      return Mono.just(refusal(e));
    }
  }

  /** {@code InstanceRequest} ({@code ephemeral}) or {@code PersistentInstanceRequest}. */
  private Mono<Payload> instance(Session session, @Nullable Principal principal, NacosMessage body,
      boolean ephemeral) {
    NacosInstance instance = required("instance", body.instance());
    NacosModel.Name name = NacosModel.name(body.namespace(), body.groupName(), body.serviceName());
    String type = body.type() == null ? "" : body.type();
    Mono<Answer> answer;
    switch (type) {
      case "registerInstance" -> {
        if (ephemeral && Boolean.FALSE.equals(instance.ephemeral())) {
          throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "instance.ephemeral is false: InstanceRequest registers "
              + "ephemeral instances, a persistent one is registered with PersistentInstanceRequest");
        }
        answer = layer.register(session, principal, NacosModel.registration(name, instance, ephemeral));
      }
      case "deregisterInstance" -> answer = layer.call(session, principal, Route.INSTANCE_DEREGISTER,
          Unpooled.wrappedBuffer(json.encode(NacosModel.ref(name, instance))));
      default -> throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "type must be registerInstance or "
          + "deregisterInstance, not '" + type + "'");
    }
    return answer.map(done -> answered(done, "InstanceResponse", body, type));
  }

  private Mono<Payload> batch(Session session, @Nullable Principal principal, NacosMessage body) {
    if (!"batchRegisterInstance".equals(body.type())) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "type must be batchRegisterInstance, not '" + body.type() + "'");
    }
    List<NacosInstance> instances = required("instances", body.instances());
    NacosModel.Name name = NacosModel.name(body.namespace(), body.groupName(), body.serviceName());
    return layer.call(session, principal, Route.INSTANCE_BATCH_REGISTER,
            Unpooled.wrappedBuffer(json.encode(NacosModel.batch(name, instances))))
        .map(done -> answered(done, "BatchInstanceResponse", body, body.type()));
  }

  /** Counts clients told to move (rebalancing). */
  void told(int clients) {
    toldToMove.increment(clients);
  }

  private static Payload answered(Answer answer, String response, NacosMessage body, String type) {
    if (answer instanceof Answer.Refused refused) {
      return NacosJson.error(refused.error());
    }
    return NacosJson.ok(response, body.requestId(), Map.of("type", type));
  }

  private Payload query(@Nullable Principal principal, NacosMessage body) {
    NacosModel.Name name = NacosModel.name(body.namespace(), body.groupName(), body.serviceName());
    ServiceSnapshot now = layer.snapshot(principal,
        NacosModel.query(name, body.cluster(), Boolean.TRUE.equals(body.healthyOnly())));
    return NacosJson.ok("QueryServiceResponse", body.requestId(),
        Map.of("serviceInfo", NacosModel.serviceInfo(now, body.cluster(), clock.millis())));
  }

  /**
   * Subscribes the connection to a view, or unsubscribes it: answered with the view now, pushed it
   * once more if the connection did not subscribe to it before, then pushed the whole view after
   * each change ({@code NotifySubscriberRequest} on its stream).
   */
  private Payload subscribe(NacosConnection connection, @Nullable Principal principal, NacosMessage body) {
    NacosModel.Name name = NacosModel.name(body.namespace(), body.groupName(), body.serviceName());
    String clusters = body.clusters() == null ? "" : body.clusters();
    String key = name.namespace() + '\u0000' + name.grouped() + '\u0000' + clusters;
    var query = NacosModel.query(name, clusters, false);
    if (!Boolean.TRUE.equals(body.subscribe())) {
      connection.unsubscribed(key);
      return NacosJson.ok("SubscribeServiceResponse", body.requestId(),
          Map.of("serviceInfo", NacosModel.serviceInfo(layer.snapshot(principal, query), clusters, clock.millis())));
    }
    // Refused here when the caller may not subscribe.
    var feed = layer.views(new Watcher(connection.toString(), "nacos"), principal, query);
    ServiceSnapshot now = layer.snapshot(principal, query);
    long answered = now.revision();
    // A first subscription is also pushed the view as it is, as Nacos's server pushes a service to
    // a client that newly subscribes to it: its clients count on that push, since the subscription
    // a client redoes after connecting again ignores the answer, and a change made between its
    // reconnecting and its redo would otherwise never reach it. A repeated one is only answered.
    boolean first = !connection.subscribes(key);
    connection.subscribed(key, feed
        .filter(snapshot -> first ? snapshot.revision() >= answered : snapshot.revision() > answered)
        .subscribe(snapshot -> connection.send(key, push(connection, key, name, clusters, snapshot)),
            error -> log.debug("{}: the subscription to {} ended: {}", connection, key, error.toString())));
    return NacosJson.ok("SubscribeServiceResponse", body.requestId(),
        Map.of("serviceInfo", NacosModel.serviceInfo(now, clusters, clock.millis())));
  }

  /** {@code NotifySubscriberRequest}: the view's rendering, shared, inside the connection's own request. */
  private Payload push(NacosConnection connection, String key, NacosModel.Name name, String clusters,
      ServiceSnapshot snapshot) {
    Rendering rendering = renderings.get(key);
    if (rendering == null || rendering.snapshot() != snapshot) {
      rendering = new Rendering(snapshot, NacosJson.write(NacosModel.serviceInfo(snapshot, clusters, clock.millis())));
      if (renderings.size() >= MAX_RENDERINGS) {
        renderings.clear(); // a cache: views no longer pushed go, and the pushed ones are built again once
      }
      renderings.put(key, rendering);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(rendering.json().length + 200);
    out.writeBytes(NacosJson.write(Map.of("requestId", connection.nextRequestId(), "module", "naming",
        "namespace", name.namespace(), "serviceName", name.service(), "groupName", name.group())));
    // The request's fields, then the shared ServiceInfo: {"requestId":...,"groupName":"..."} + ,"serviceInfo":{...}}
    byte[] head = out.toByteArray();
    out.reset();
    out.write(head, 0, head.length - 1);
    out.writeBytes(",\"serviceInfo\":".getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(rendering.json());
    out.write('}');
    pushes.increment();
    return Payload.of("NotifySubscriberRequest", out.toByteArray());
  }

  private Payload list(@Nullable Principal principal, NacosMessage body) {
    NacosModel.Name name = NacosModel.name(body.namespace(), body.groupName(), "-");
    int pageNo = body.pageNo() == null || body.pageNo() < 1 ? 1 : body.pageNo();
    int pageSize = body.pageSize() == null || body.pageSize() < 1 ? 10 : body.pageSize();
    // Nacos's clients ask for pages of any size (Integer.MAX_VALUE for "all"); this layer's pages
    // are at most 1,000: read those that cover the window asked for.
    long from = (long) (pageNo - 1) * pageSize;
    long to = from + pageSize;
    List<String> names = new ArrayList<>();
    long total = 0;
    int page = (int) (from / 1_000) + 1;
    while (true) {
      ServiceList read = layer.serviceList(principal, new ServiceListQuery(name.namespace(), name.group(), null,
          page, 1_000));
      total = read.total();
      long first = (long) (page - 1) * 1_000;
      for (int i = 0; i < read.services().size(); i++) {
        long at = first + i;
        if (at >= from && at < to) {
          ServiceSummary summary = read.services().get(i);
          names.add(summary.service());
        }
      }
      if (read.services().size() < 1_000 || first + 1_000 >= to) {
        break;
      }
      page++;
    }
    return NacosJson.ok("ServiceListResponse", body.requestId(), Map.of("count", total, "serviceNames", names));
  }

  // ---- BiRequestStream.requestBiStream: the connection's setup, and the client's answers ----

  @Override
  public void streamed(NacosConnection connection, Payload payload, ServerCallStreamObserver<Payload> out) {
    String type = payload.type();
    long now = clock.millis();
    connection.active(now);
    if (type.endsWith("Response")) {
      // A client's acknowledgement of a push (pushes are whole views, a lost one is superseded), or
      // its answer to whether it is alive, which keeps what it owns alive as a call does.
      Session session = connection.session();
      if ("ClientDetectionResponse".equals(type) && session != null) {
        answered.increment();
        try {
          keepAlive(connection, session, connection.lastPrincipal(), now);
        } catch (RuntimeException refused) { // its token expired meanwhile, say: its next call says so
          log.debug("{}: its answer kept nothing alive: {}", connection, refused.toString());
        }
      }
      return;
    }
    if (!"ConnectionSetupRequest".equals(type)) {
      log.debug("{}: ignored a {} on the stream (only a ConnectionSetupRequest and answers go there)", connection,
          type);
      return;
    }
    if (connection.refusal != null) {
      connection.close();
      out.onError(Status.PERMISSION_DENIED.withDescription(new String(connection.refusal.body(),
          StandardCharsets.UTF_8)).asRuntimeException());
      return;
    }
    NacosMessage setup;
    try {
      setup = NacosJson.read(payload.body());
    } catch (IOException e) {
      log.debug("{}: a ConnectionSetupRequest that is not JSON: {}", connection, NacosJson.problem(e));
      return;
    }
    Map<String, String> labels = setup.labels() == null ? Map.of() : setup.labels();
    String app = labels.getOrDefault("AppName", "-");
    String client = "nacos " + (setup.clientVersion() == null ? "" : setup.clientVersion()) + " " + app;
    Session session = layer.open(app + "@" + connection.remote);
    if (!connection.setUp(session, client.trim(), out)) {
      layer.release(session); // a second setup, or the connection closed meanwhile
      return;
    }
    layer.listed(session, new Connections.Listing(client.trim(), String.valueOf(connection.remote), "nacos-grpc",
        connection.openedAt, connection::lastPrincipal, connection::subscriptions));
    connection.send("setup", NacosJson.serverRequest("SetupAckRequest", connection.nextRequestId(),
        Map.of("abilityTable", ABILITIES, "module", "internal")));
    log.info("nacos connection set up: {} {} from {}", connection.id, client.trim(), connection.remote);
  }

  /**
   * Asks each connection quiet for {@link #QUIET_MILLIS} whether it is alive, and closes those that
   * were asked and have not answered within {@link #ANSWER_WITHIN_MILLIS}: their instances are
   * released and pushed as removed at once, and their stream ends (a client that was only slow
   * connects again and registers again, as after any lost connection). Then releases what closed
   * connections told to move still own: nothing once it has all been taken over (by the client's
   * registration on another member, or here when it came back), the rest when the client has not
   * registered it within {@link #MOVE_WITHIN_MILLIS}.
   */
  @Override
  public void tick(Collection<NacosConnection> connections) {
    long now = clock.millis();
    for (NacosConnection connection : connections) {
      if (connection.detectionOverdue(now)) {
        log.info("{}: no answer to ClientDetectionRequest within {} ms after {} ms of quiet: closed", connection,
            ANSWER_WITHIN_MILLIS, QUIET_MILLIS);
        unanswered.increment();
        closed(connection);
        connection.endStream(Status.UNAVAILABLE.withDescription("no answer to ClientDetectionRequest within "
            + ANSWER_WITHIN_MILLIS + " ms: the connection is closed and its instances released"));
      } else if (connection.detectionDue(now, QUIET_MILLIS)) {
        asked.increment();
        String id = connection.detect(now + ANSWER_WITHIN_MILLIS);
        connection.send("detection", NacosJson.serverRequest("ClientDetectionRequest", id,
            Map.of("module", "internal")));
      }
    }
    moved.forEach((connection, held) -> {
      Session session = Objects.requireNonNull(connection.opened());
      int owned = layer.owned(session);
      if ((owned == 0 || now >= held.releaseAt()) && moved.remove(connection, held)) {
        cameBack(connection, held.owned(), connections);
        int released = layer.release(session);
        if (released > 0) {
          log.info("{} was told to move to {} and closed; its client did not register {} instance(s) "
              + "elsewhere within {} ms: released", connection, connection.movedTo(), released, MOVE_WITHIN_MILLIS);
        }
      }
    });
  }

  /**
   * Whether what a connection told to move owned was taken over here, by another of this member's
   * connections: its client came back instead of moving (its server list does not name the member
   * it was sent to: a Nacos client follows a move only to a server its list names, by IP). That
   * connection stays here, never told again.
   */
  private void cameBack(NacosConnection moved, Holdings owned, Collection<NacosConnection> open) {
    long holder = layer.heldHereBy(owned);
    if (holder < 0) {
      return;
    }
    for (NacosConnection connection : open) {
      Session session = connection.session();
      if (session != null && session.id() == holder && connection != moved && connection.stays()) {
        cameBack.increment();
        log.info("{} was told to move to {} and its client came back here on {}: its server list does not "
            + "name that member's address; it is not told to move again", moved, moved.movedTo(), connection);
      }
    }
  }

  /**
   * Releases what the connection owned, once; unless it was told to move (rebalancing), as its
   * client closes it before it registers again on the member it was sent to: what it owns then stays
   * until that member has taken it over (see {@link #tick}), so no view sees it go and come back.
   */
  @Override
  public void closed(NacosConnection connection) {
    if (!connection.close()) {
      return;
    }
    Session session = connection.opened();
    if (session == null) {
      return;
    }
    Holdings owned = connection.moving() ? layer.holdings(session) : null;
    if (owned != null && !owned.isEmpty()) {
      moved.put(connection, new Moved(owned, clock.millis() + MOVE_WITHIN_MILLIS));
      log.info("nacos connection closed after it was told to move: {}; what it owns stays until its client has "
          + "registered it elsewhere (at most {} ms)", connection, MOVE_WITHIN_MILLIS);
      return;
    }
    int released = layer.release(session);
    log.info("nacos connection closed: {} ({} ephemeral instances released)", connection, released);
  }

  // ---- shared ----

  /**
   * A Nacos client sends no heartbeats: its connection keeps its instances, and it calls at least
   * every few seconds (a {@code HealthCheckRequest} when it has nothing else to ask). So any call
   * refreshes what the connection owns, at most once a second; a client that stops calling while
   * its connection stays open sees its instances turn unhealthy and go, as heartbeats would have it.
   */
  private void keepAlive(NacosConnection connection, Session session, @Nullable Principal principal, long now) {
    if (connection.keepAliveDue(now, KEEP_ALIVE_EVERY_MILLIS)) {
      layer.beat(session, principal, Unpooled.wrappedBuffer(ALL_MINE));
    }
  }

  /**
   * The principal of the request's {@code accessToken} header (what a Nacos client that logged in
   * sends with every request); null without one, which the layer refuses when credentials are
   * required.
   */
  private @Nullable Principal principal(NacosConnection connection, Map<String, String> headers) {
    if (!access.required()) {
      return null;
    }
    String token = headers.get("accessToken");
    if (token == null || token.isBlank()) {
      return null;
    }
    long now = clock.millis();
    NacosConnection.CachedPrincipal cached = connection.cachedPrincipal();
    if (cached != null && cached.token().equals(token) && now < cached.until()) {
      return cached.principal();
    }
    Credential credential = access.authenticate(token, connection.remote);
    long until = now + PRINCIPAL_CACHE_MILLIS;
    if (credential.expiresAt() != null) {
      until = Math.min(until, credential.expiresAt().toEpochMilli());
    }
    connection.cache(new NacosConnection.CachedPrincipal(token, credential.principal(), until));
    return credential.principal();
  }

  private static <T> T required(String field, @Nullable T value) {
    if (value == null) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, field + " is required");
    }
    return value;
  }

  private static Payload refusal(RuntimeException e) {
    return NacosJson.error(((Answer.Refused) Answer.refusal(e)).error());
  }
}
