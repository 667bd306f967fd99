package io.reactiveregistry.server.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.CatalogQuery;
import io.reactiveregistry.protocol.message.Query;
import io.reactiveregistry.protocol.message.ServiceListQuery;
import io.reactiveregistry.protocol.message.TraceHistoryQuery;
import io.reactiveregistry.protocol.message.TraceQuery;
import io.reactiveregistry.protocol.rules.TimeBounds;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.cluster.ClusterStatus;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.errors.ErrorTable;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.eureka.EurekaDoor;
import io.reactiveregistry.server.request.Answer;
import io.reactiveregistry.server.request.Catalog;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.request.Watcher;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Credential;
import io.reactiveregistry.server.security.Principal;
import io.reactiveregistry.server.security.ProtectedMode;
import io.reactiveregistry.server.tls.ClientCertificates;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.HttpServerRoutes;

/**
 * {@code GET /}, the operator's {@link Dashboard}; {@code /health}, {@code /ready}, {@code /metrics},
 * {@code /api/v1/services?namespace=&group=&prefix=&page=&pageSize=} (paged like {@code service.list})
 * and {@code /api/v1/services/{namespace}/{group}/{service}?clusters=&healthyOnly=&selector=} ({@code clusters}
 * repeated or comma-separated); for callers without RSocket, {@code POST /api/v1/{route}} with the
 * route's JSON body and {@code GET /api/v1/watch/{namespace}/{group}/{service}},
 * a {@code service.subscribe} stream as server-sent events ({@link ServerSentEvents}), and
 * {@code GET /api/v1/trace}, the audit trail the same way, and {@code GET /api/v1/trace/history},
 * the part of it this member kept. The API is
 * described in {@code docs/openapi.json}. Errors are the contract's JSON,
 * {@code {"code": "...", "message": "..."}}, with the code's HTTP status.
 */
public final class HttpEndpoint {
  private static final String JSON = "application/json";
  private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";
  private static final String OPENMETRICS = "application/openmetrics-text";
  private static final String OPENMETRICS_FORMAT = OPENMETRICS + "; version=1.0.0; charset=utf-8";
  private static final String BEARER = "Bearer ";
  private static final String BASIC = "Basic ";
  private static final Set<String> PATHS = Set.of("/", "/health", "/ready", "/metrics", "/api/v1/cluster", "/api/v1/services",
      "/api/v1/namespaces", "/api/v1/trace", "/api/v1/trace/history", "/api/v1/backup", "/api/v1/prometheus/targets");
  /** The largest request body a POST may carry: what an RSocket request may (the default frame limit). */
  private static final int MAX_BODY_BYTES = 1 << 20;
  /** A comment line this often on a quiet watch, so that proxies and clients see the stream alive. */
  private static final Duration SSE_KEEPALIVE = Duration.ofSeconds(15);
  /**
   * How long a coalescing watch's events, and the audit trail's, are gathered into one write: a
   * tenth of a second, unnoticed on a dashboard, and ten writes a second per watcher at most.
   */
  private static final Duration SSE_GATHER = Duration.ofMillis(100);

  private final PrometheusMeterRegistry meters;
  private final BooleanSupplier ready;

  private final Duration idleTimeout;
  private final Supplier<String> failure;
  private final ConnectionDoor door;
  private final ProtectedMode protectedMode;
  private final Counter refusedByProtectedMode;
  private final Access access;
  /** TLS (https://); null for plain HTTP. */
  private final @Nullable SslContext tls;
  /** This node's latest view of its cluster; null when durable state is kept in memory only. */
  private final Supplier<@Nullable ClusterStatus> cluster;
  /** Where every request goes once its caller is known. */
  private final RequestLayer layer;
  private final Dashboard dashboard = Dashboard.load();
  /** Eureka's REST API under {@code /eureka/}. */
  private final EurekaDoor eureka;

  /**
   * @param failure what failed beyond repair without a restart (durable storage), or null while
   *     nothing has: {@code /health} then answers 503 DOWN, so that a supervisor restarts the server
   */
  public HttpEndpoint(RequestLayer layer, PrometheusMeterRegistry meters, BooleanSupplier ready,
      Duration idleTimeout, Supplier<String> failure, ConnectionDoor door, ProtectedMode protectedMode,
      Counter refusedByProtectedMode, Access access, @Nullable SslContext tls,
      Supplier<@Nullable ClusterStatus> cluster, EurekaDoor eureka) {
    this.layer = layer;
    this.eureka = eureka;
    this.tls = tls;
    this.cluster = cluster;
    this.access = access;
    this.door = door;
    this.protectedMode = protectedMode;
    this.refusedByProtectedMode = refusedByProtectedMode;
    this.meters = meters;
    this.ready = ready;
    this.idleTimeout = idleTimeout;
    this.failure = failure;
  }

  public Mono<DisposableServer> bind(String host, int port) {
    HttpServer server = HttpServer.create().host(host).port(port);
    return SlowClients.bounded(tls == null ? server : server.secure(spec -> spec.sslContext(tls)), idleTimeout)
        // At the channel's creation: HTTP's doOnConnection waits for a request, which an idle
        // connection never sends.
        .doOnChannelInit((observer, channel, remote) -> {
          if (door.admit(channel) != null) {
            channel.eventLoop().execute(channel::close); // once initialised: a close within is not carried out
          }
        })
        .handle(HandlerInItsOwnTask.of(HttpServerRoutes.newRoutes()
            .get("/health", (request, response) -> {
              String broken = failure.get();
              return broken == null ? json(response, HttpResponseStatus.OK, Map.of("status", "UP"))
                  : json(response, HttpResponseStatus.SERVICE_UNAVAILABLE, Map.of("status", "DOWN",
                      "reason", broken));
            })
            .get("/ready", (request, response) -> ready.getAsBoolean()
                ? json(response, HttpResponseStatus.OK, Map.of("status", "READY"))
                : json(response, HttpResponseStatus.SERVICE_UNAVAILABLE, Map.of("status", "NOT_READY")))
            // Past the probes, which tell an orchestrator only whether the server runs: protected mode.
            .route(request -> protectedMode.refusal(request.remoteAddress()) != null, this::forbidden)
            // First past protected mode: Eureka's renewals are the most frequent requests on this port.
            .route(request -> EurekaDoor.serves(request.uri()), this::eureka)
            .get("/", (request, response) -> dashboard.page(response))
            .get("/dashboard/{file}", (request, response) -> {
              Publisher<Void> file = dashboard.file(request.param("file"), response);
              return file != null ? file : unrouted(request, response);
            })
            .get("/metrics", this::metrics)
            .get("/api/v1/cluster", this::cluster)
            .get("/api/v1/services", this::list)
            .get("/api/v1/namespaces", this::namespaces)
            .get("/api/v1/services/{namespace}/{group}/{service}", this::snapshot)
            .get("/api/v1/watch/{namespace}/{group}/{service}", this::watch)
            .get("/api/v1/trace", this::trace)
            .get("/api/v1/trace/history", this::history)
            .get("/api/v1/backup", this::backup)
            .get("/api/v1/prometheus/targets", this::prometheusTargets)
            .get("/api/v1/catalog/{namespace}", this::catalog)
            .post("/api/v1/{route}", this::call)
            .route(request -> true, this::unrouted)))
        .bind()
        .map(DisposableServer.class::cast);
  }

  /**
   * {@code POST /api/v1/instance.register} and every other request-response route, and
   * {@code instance.heartbeat}: the body is the route's JSON, the answer the route's.
   */
  private Publisher<Void> call(HttpServerRequest request, HttpServerResponse response) {
    Route route = Route.byName(request.param("route")).orElse(null);
    if (route == null || !RequestLayer.callableOverHttp(route)) {
      return unrouted(request, response);
    }
    // W3C trace context: an invalid traceparent is ignored, as the recommendation asks.
    TraceParent caller = TraceParent.parse(request.requestHeaders().get("traceparent")).orElse(null);
    return RequestBodies.read(request, MAX_BODY_BYTES)
        .flatMap(body -> layer.call(layer.http(), principalOf(request), route, Unpooled.wrappedBuffer(body), caller))
        .onErrorResume(RuntimeException.class, e -> Mono.just(Answer.refusal(e)))
        .flatMap(answer -> send(response, answer).then());
  }

  /** Eureka's REST API: its caller authenticated and its body read within the door's bound, as for the rest. */
  private Publisher<Void> eureka(HttpServerRequest request, HttpServerResponse response) {
    Principal principal;
    try {
      principal = principalOf(request);
    } catch (RuntimeException e) {
      return EurekaDoor.refuse(response, e); // with Basic in WWW-Authenticate: what Eureka's clients send
    }
    return RequestBodies.read(request, MAX_BODY_BYTES)
        .flatMap(body -> Mono.from(eureka.handle(request, response, principal, body)))
        .onErrorResume(RuntimeException.class, e -> Mono.from(refusal(response, e)));
  }

  /** An answer as HTTP carries it: the JSON with 200, or the refusal's body with its status. */
  private static Mono<Void> send(HttpServerResponse response, Answer answer) {
    if (answer instanceof Answer.Served served) {
      return response.status(HttpResponseStatus.OK).header(HttpHeaderNames.CONTENT_TYPE, JSON)
          .sendByteArray(Mono.just(served.json())).then();
    }
    WireError error = ((Answer.Refused) answer).error();
    if (error.httpStatus() == HttpResponseStatus.UNAUTHORIZED.code()) {
      response.header(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
    }
    return response.status(error.httpStatus()).header(HttpHeaderNames.CONTENT_TYPE, JSON)
        .sendByteArray(Mono.just(JsonCodec.json().encode(error.body()))).then();
  }

  /**
   * {@code GET /api/v1/watch/{namespace}/{group}/{service}?clusters=&healthyOnly=&selector=&coalesce=}: the
   * view's events as server-sent events, resumed from {@code Last-Event-ID} within the server's
   * history; with {@code coalesce=true}, a burst goes as one {@code BATCH} event.
   */
  private Publisher<Void> watch(HttpServerRequest request, HttpServerResponse response) {
    try {
      Map<String, List<String>> params = new QueryStringDecoder(request.uri()).parameters();
      ServerSentEvents.Position from = ServerSentEvents.Position.parse(
          request.requestHeaders().get("Last-Event-ID", first(params, "lastEventId")));
      boolean coalesce = Boolean.parseBoolean(first(params, "coalesce"));
      Query query = new Query(request.param("namespace"), request.param("group"), request.param("service"),
          clusters(params.get("clusters")), Boolean.parseBoolean(first(params, "healthyOnly")),
          from == null ? null : from.revision(), from == null ? null : from.node(), coalesce ? Boolean.TRUE : null,
          first(params, "selector"), null);
      Flux<byte[]> events = layer.subscribe(watcher(request), principalOf(request), query, null);
      return eventStream(response, ServerSentEvents.of(events, SSE_KEEPALIVE,
          coalesce ? SSE_GATHER : Duration.ZERO));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /**
   * {@code GET /api/v1/catalog/{namespace}?group=&prefix=}: the services of a namespace as
   * server-sent events ({@code catalog.subscribe}), resumed from {@code Last-Event-ID} within the
   * server's history.
   */
  private Publisher<Void> catalog(HttpServerRequest request, HttpServerResponse response) {
    try {
      Map<String, List<String>> params = new QueryStringDecoder(request.uri()).parameters();
      ServerSentEvents.Position from = ServerSentEvents.Position.parse(
          request.requestHeaders().get("Last-Event-ID", first(params, "lastEventId")));
      CatalogQuery query = new CatalogQuery(request.param("namespace"), first(params, "group"),
          first(params, "prefix"), from == null ? null : from.revision(), from == null ? null : from.node());
      Flux<byte[]> events = layer.catalog(principalOf(request), query);
      return eventStream(response, ServerSentEvents.of(events, SSE_KEEPALIVE, SSE_GATHER));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /** {@code GET /api/v1/trace?namespace=&group=&service=}: the audit trail, live, as server-sent events. */
  private Publisher<Void> trace(HttpServerRequest request, HttpServerResponse response) {
    try {
      Map<String, List<String>> params = new QueryStringDecoder(request.uri()).parameters();
      TraceQuery query = new TraceQuery(first(params, "namespace"), first(params, "group"), first(params, "service"));
      Flux<byte[]> events = layer.trace(principalOf(request), query);
      return eventStream(response, ServerSentEvents.named("trace", events, SSE_KEEPALIVE, SSE_GATHER));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /**
   * {@code GET /api/v1/trace/history?service=&since=1h&...}: {@code admin.trace.query}'s answer;
   * {@code since} and {@code until} also as an age or an ISO-8601 instant ({@link TimeBounds}).
   */
  private Publisher<Void> history(HttpServerRequest request, HttpServerResponse response) {
    try {
      Map<String, List<String>> params = new QueryStringDecoder(request.uri()).parameters();
      long now = layer.clock().millis();
      TraceHistoryQuery query = new TraceHistoryQuery(first(params, "namespace"), first(params, "group"),
          first(params, "service"), first(params, "instance"), first(params, "cause"), first(params, "principal"),
          TimeBounds.parse("since", first(params, "since"), now), TimeBounds.parse("until", first(params, "until"), now),
          whole(params, "limit"));
      return json(response, HttpResponseStatus.OK, layer.history(principalOf(request), query));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /**
   * {@code GET /api/v1/backup}: {@code admin.backup}'s file, whole (answered once the copy is made,
   * so that a refusal still has its status).
   */
  private Publisher<Void> backup(HttpServerRequest request, HttpServerResponse response) {
    try {
      return layer.backup(principalOf(request)).collectList()
          .flatMap(pieces -> response.status(HttpResponseStatus.OK)
              .header(HttpHeaderNames.CONTENT_TYPE, "application/x-ndjson")
              .header(HttpHeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"registry.backup\"")
              .sendByteArray(Flux.fromIterable(pieces)).then())
          .onErrorResume(RuntimeException.class, e -> Mono.from(refusal(response, e)));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /**
   * {@code GET /api/v1/prometheus/targets?namespace=&group=&service=}: the instances of a namespace
   * and group as Prometheus's HTTP service discovery reads them ({@link PrometheusTargets}), with
   * {@code service.list}'s permission.
   */
  private Publisher<Void> prometheusTargets(HttpServerRequest request, HttpServerResponse response) {
    try {
      Map<String, List<String>> params = new QueryStringDecoder(request.uri()).parameters();
      Catalog catalog = layer.catalog(principalOf(request), first(params, "namespace"), first(params, "group"));
      byte[] body = JsonCodec.json().encode(PrometheusTargets.of(catalog, first(params, "service")));
      return response.status(HttpResponseStatus.OK).header(HttpHeaderNames.CONTENT_TYPE, JSON)
          .sendByteArray(Mono.just(body)).then();
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /** An HTTP watch, as admin.service.subscribers names it: {@code http@address:port}. */
  private static Watcher watcher(HttpServerRequest request) {
    InetSocketAddress remote = request.remoteAddress();
    return new Watcher("http@" + (remote == null ? "?" : remote.getAddress().getHostAddress() + ":" + remote.getPort()),
        "http");
  }

  private static Publisher<Void> eventStream(HttpServerResponse response, Flux<String> framed) {
    return response.status(HttpResponseStatus.OK)
        .header(HttpHeaderNames.CONTENT_TYPE, ServerSentEvents.CONTENT_TYPE)
        .header(HttpHeaderNames.CACHE_CONTROL, "no-cache")
        .sendString(framed, StandardCharsets.UTF_8);
  }

  /** The metrics name no service or instance: any principal may read them. */
  private Publisher<Void> metrics(HttpServerRequest request, HttpServerResponse response) {
    try {
      layer.requirePrincipal(principalOf(request));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
    // OpenMetrics when asked for (Prometheus asks first): the only format that carries exemplars,
    // the traces of traced changes' pushes on registry_push_latency_seconds.
    String accept = request.requestHeaders().get(HttpHeaderNames.ACCEPT, "");
    String format = accept.contains(OPENMETRICS) ? OPENMETRICS_FORMAT : PROMETHEUS;
    return response.status(HttpResponseStatus.OK).header("Content-Type", format)
        .sendString(Mono.fromSupplier(() -> meters.scrape(format)));
  }

  /** The cluster's members and their state names no service: any principal may read it. */
  private Publisher<Void> cluster(HttpServerRequest request, HttpServerResponse response) {
    try {
      layer.requirePrincipal(principalOf(request));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
    ClusterStatus status = cluster.get();
    return status == null
        ? refusal(response, new EdgeRefusal(ErrorCode.NOT_FOUND,
            "this server keeps durable state in memory only (--in-memory): it belongs to no cluster"))
        : json(response, HttpResponseStatus.OK, status.toInfo());
  }

  /**
   * The principal of the request's token: {@code Authorization: Bearer <token>}, or HTTP Basic with
   * the token as the password (what Eureka's clients send from {@code http://user:token@host/eureka/};
   * the user name is not read); null without one.
   */
  private @Nullable Principal principalOf(HttpServerRequest request) {
    if (!access.required()) {
      return null;
    }
    String header = request.requestHeaders().get(HttpHeaderNames.AUTHORIZATION);
    if (header == null) { // a client certificate may speak for the request
      SslHandler[] tls = new SslHandler[1];
      request.withConnection(connection -> tls[0] = connection.channel().pipeline().get(SslHandler.class));
      Credential certificate = access.certificate(ClientCertificates.commonName(tls[0]));
      return certificate == null ? null : certificate.principal();
    }
    String token;
    if (header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      token = header.substring(BEARER.length()).trim();
    } else if (header.regionMatches(true, 0, BASIC, 0, BASIC.length())) {
      token = basicPassword(header.substring(BASIC.length()).trim());
    } else {
      throw new EdgeRefusal(ErrorCode.UNAUTHENTICATED,
          "the Authorization header must be 'Bearer <token>', or Basic with the token as the password");
    }
    return access.authenticate(token, request.remoteAddress()).principal();
  }

  /** Basic's {@code base64(user:password)}: the password. */
  private static String basicPassword(String encoded) {
    String pair;
    try {
      pair = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new EdgeRefusal(ErrorCode.UNAUTHENTICATED, "the Basic credentials are not base64");
    }
    int colon = pair.indexOf(':');
    if (colon < 0 || colon == pair.length() - 1) {
      throw new EdgeRefusal(ErrorCode.UNAUTHENTICATED, "Basic credentials must carry the token as the password");
    }
    return pair.substring(colon + 1);
  }

  /** {@code GET /api/v1/services?namespace=&group=&prefix=&page=&pageSize=}: {@code service.list}. */
  private Publisher<Void> list(HttpServerRequest request, HttpServerResponse response) {
    try {
      Map<String, List<String>> params = new QueryStringDecoder(request.uri()).parameters();
      ServiceListQuery query = new ServiceListQuery(first(params, "namespace"), first(params, "group"),
          first(params, "prefix"), whole(params, "page"), whole(params, "pageSize"));
      return send(response, layer.list(principalOf(request), query));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /** {@code GET /api/v1/namespaces}: {@code namespace.list}. */
  private Publisher<Void> namespaces(HttpServerRequest request, HttpServerResponse response) {
    try {
      return send(response, layer.namespaceList(principalOf(request)));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /**
   * {@code GET /api/v1/services/{namespace}/{group}/{service}?clusters=&healthyOnly=&selector=&consistent=}:
   * the view now; with {@code consistent=true}, once this member has caught up with the cluster.
   */
  private Publisher<Void> snapshot(HttpServerRequest request, HttpServerResponse response) {
    try {
      Map<String, List<String>> params = new QueryStringDecoder(request.uri()).parameters();
      Query query = new Query(request.param("namespace"), request.param("group"), request.param("service"),
          clusters(params.get("clusters")), Boolean.parseBoolean(first(params, "healthyOnly")),
          first(params, "selector"));
      if (Boolean.parseBoolean(first(params, "consistent"))) {
        return layer.consistentView(principalOf(request), query).flatMap(answer -> Mono.from(send(response, answer)));
      }
      return send(response, layer.view(principalOf(request), query));
    } catch (RuntimeException e) {
      return refusal(response, e);
    }
  }

  /** A request refused before it reached the request layer (a token not valid, a parameter not a number). */
  private static Publisher<Void> refusal(HttpServerResponse response, RuntimeException e) {
    return send(response, Answer.refusal(e));
  }

  /**
   * A path this API does not serve is an unknown route (404); a known path asked with another
   * method than GET, the same code with 405 and an {@code Allow} header.
   */
  private Publisher<Void> forbidden(HttpServerRequest request, HttpServerResponse response) {
    refusedByProtectedMode.increment();
    return refusal(response, new EdgeRefusal(ErrorCode.FORBIDDEN, protectedMode.refusal(request.remoteAddress())));
  }

  private Publisher<Void> unrouted(HttpServerRequest request, HttpServerResponse response) {
    String path = new QueryStringDecoder(request.uri()).path();
    Route route = path.startsWith("/api/v1/") ? Route.byName(path.substring("/api/v1/".length())).orElse(null) : null;
    boolean known = PATHS.contains(path) || path.startsWith("/api/v1/services/") || path.startsWith("/api/v1/watch/");
    String allowed = route != null && RequestLayer.callableOverHttp(route) ? "POST" : known ? "GET" : null;
    if (allowed == null) {
      return refusal(response, new EdgeRefusal(ErrorCode.UNKNOWN_ROUTE, "no such path: " + path));
    }
    // The contract's code for a route not served, with HTTP's own status for a method not allowed.
    WireError error = ErrorTable.of(new EdgeRefusal(ErrorCode.UNKNOWN_ROUTE,
        request.method() + " is not served on " + path + "; use " + allowed));
    return json(response.header("Allow", allowed), HttpResponseStatus.METHOD_NOT_ALLOWED, error.body());
  }

  private static Publisher<Void> json(HttpServerResponse response, HttpResponseStatus status, Object body) {
    return response.status(status).header("Content-Type", JSON)
        .sendByteArray(Mono.just(JsonCodec.json().encode(body)));
  }

  /** {@code clusters=a,b} means what {@code clusters=a&clusters=b} means. */
  private static List<String> clusters(List<String> values) {
    if (values == null) {
      return null;
    }
    List<String> clusters = new ArrayList<>();
    for (String value : values) {
      for (String cluster : value.split(",", -1)) {
        clusters.add(cluster.trim());
      }
    }
    return clusters;
  }

  private static Integer whole(Map<String, List<String>> params, String name) {
    String value = first(params, name);
    if (value == null) {
      return null;
    }
    try {
      return Integer.valueOf(value.trim());
    } catch (NumberFormatException e) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, name + " must be a whole number, not '" + value + "'");
    }
  }

  private static String first(Map<String, List<String>> params, String name) {
    List<String> values = params.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }
}
