package io.reactiveregistry.server.nacos;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.Heartbeat;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceOverride;
import io.reactiveregistry.protocol.message.Query;
import io.reactiveregistry.protocol.message.ServiceDefinition;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceListQuery;
import io.reactiveregistry.protocol.message.ServiceRef;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.http.RequestBodies;
import io.reactiveregistry.server.request.Answer;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.request.Session;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Credential;
import io.reactiveregistry.server.security.Principal;
import io.reactiveregistry.server.security.ProtectedMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Nacos's HTTP Open API for naming, for clients without gRPC (other languages' SDKs, scripts):
 * under {@code /nacos/v1/ns/} with Nacos 1's answers ({@code ok}, JSON documents, a refusal as
 * {@code caused: <message>} with its HTTP status) and under {@code /nacos/v2/ns/} with Nacos 2's
 * ({@code {"code":0,"message":"success","data":...}}). Parameters come in the query string or an
 * {@code application/x-www-form-urlencoded} body, as Nacos takes them. Also the login Nacos's
 * clients make before anything else, {@code POST /nacos/v1/auth/users/login}.
 *
 * <p>Instances registered here belong to no connection: they live by their beats
 * ({@code PUT /nacos/v1/ns/instance/beat}), as Nacos 1's did.
 */
final class NacosHttpApi {
  private static final JsonCodec json = JsonCodec.json();
  /** The beat interval this door asks of HTTP clients: the registry's default heartbeat interval. */
  private static final long BEAT_INTERVAL_MILLIS = 5_000;
  /** Nacos 1's codes in a beat's answer: kept, and "register it again". */
  private static final int BEAT_OK = 10_200;
  private static final int BEAT_UNKNOWN = 20_404;
  /** How long a token given out by the login is said to last when it does not expire: Nacos's default. */
  private static final long TOKEN_TTL_SECONDS = 18_000;

  private final RequestLayer layer;
  private final Access access;
  private final ProtectedMode protectedMode;
  private final InstantSource clock;
  private final int maxBodyBytes;

  NacosHttpApi(RequestLayer layer, Access access, ProtectedMode protectedMode, InstantSource clock, int maxBodyBytes) {
    this.layer = layer;
    this.access = access;
    this.protectedMode = protectedMode;
    this.clock = clock;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** Nacos 1 or 2: how an answer and a refusal are written. */
  private enum Version { V1, V2 }

  Mono<Void> handle(HttpServerRequest request, HttpServerResponse response) {
    String path = new QueryStringDecoder(request.uri()).path();
    Version version = path.startsWith("/nacos/v2/") ? Version.V2 : Version.V1;
    String refusal = protectedMode.refusal(request.remoteAddress());
    if (refusal != null) {
      return refuse(response, version, new EdgeRefusal(ErrorCode.FORBIDDEN, refusal));
    }
    return RequestBodies.read(request, maxBodyBytes)
        .flatMap(body -> {
          Params params = Params.of(request, body);
          return route(request.method(), path, version, params, request)
              .flatMap(answer -> write(response, answer));
        })
        .onErrorResume(error -> refuse(response, version, error));
  }

  /** What a route answers: an HTTP status and a body. */
  private record Reply(HttpResponseStatus status, String contentType, byte[] body) {}

  private Mono<Reply> route(HttpMethod method, String path, Version version, Params params,
      HttpServerRequest request) {
    String route = path.replaceFirst("^/nacos/v[12]", "");
    if (route.equals("/auth/users/login") || route.equals("/auth/login")) {
      return Mono.just(login(params, request));
    }
    Principal principal = principal(params, request);
    String key = method.name() + " " + route;
    return switch (key) {
      case "POST /ns/instance" -> register(principal, params).map(done -> ok(version, "ok"));
      case "DELETE /ns/instance" -> deregister(principal, params).map(done -> ok(version, "ok"));
      case "PUT /ns/instance" -> update(principal, params).map(done -> ok(version, "ok"));
      case "GET /ns/instance" -> Mono.fromCallable(() -> ok(version, detail(principal, params)));
      case "PUT /ns/instance/beat" -> Mono.fromCallable(() -> ok(version, beat(principal, params)));
      case "GET /ns/instance/list" -> Mono.fromCallable(() -> ok(version, list(principal, params)));
      case "GET /ns/service" -> Mono.fromCallable(() -> ok(version, service(principal, params)));
      case "POST /ns/service" -> define(principal, params, Route.ADMIN_SERVICE_CREATE).map(done -> ok(version, "ok"));
      case "PUT /ns/service" -> define(principal, params, Route.ADMIN_SERVICE_UPDATE).map(done -> ok(version, "ok"));
      case "DELETE /ns/service" -> delete(principal, params).map(done -> ok(version, "ok"));
      case "GET /ns/service/list" -> Mono.fromCallable(() -> ok(version, services(principal, params, version)));
      default -> Mono.error(new EdgeRefusal(ErrorCode.NOT_FOUND, "no such Nacos API here: " + key + " (this door "
          + "serves /nacos/v1/ns/ and /nacos/v2/ns/ instance, instance/beat, instance/list, service and service/list, "
          + "and /nacos/v1/auth/users/login)"));
    };
  }

  // ---- instances ----

  private Mono<Answer> register(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    boolean ephemeral = params.bool("ephemeral", true);
    NacosInstance instance = params.instance();
    Session session = layer.nacosHttp();
    return succeeded(layer.register(session, principal, NacosModel.registration(name, instance, ephemeral)));
  }

  private Mono<Answer> deregister(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    return succeeded(layer.call(layer.nacosHttp(), principal, Route.INSTANCE_DEREGISTER,
        Unpooled.wrappedBuffer(json.encode(NacosModel.ref(name, params.instance())))));
  }

  /** Nacos's update of an instance's weight, enabled flag and metadata: the instance's own amendment. */
  private Mono<Answer> update(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    NacosInstance instance = params.instance();
    InstanceOverride patch = new InstanceOverride(name.namespace(), name.group(), name.service(),
        InstanceBody.ref(instance.ip(), instance.port() == null ? 0 : instance.port(), instance.clusterName()),
        params.has("enabled") ? params.bool("enabled", true) : null,
        params.has("weight") ? instance.weight() : null, params.has("metadata") ? instance.metadata() : null);
    return succeeded(layer.amend(layer.nacosHttp(), principal, patch));
  }

  private Map<String, Object> detail(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    String ip = params.required("ip");
    int port = params.integer("port", -1);
    String cluster = params.text("clusterName", params.text("cluster", "DEFAULT"));
    ServiceSnapshot now = layer.snapshot(principal, NacosModel.query(name, null, false));
    for (InstanceBody instance : now.instances()) {
      if (ip.equals(instance.ip()) && Integer.valueOf(port).equals(instance.port())
          && cluster.equals(instance.cluster())) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("service", name.grouped());
        detail.put("ip", instance.ip());
        detail.put("port", instance.port());
        detail.put("clusterName", instance.cluster());
        detail.put("weight", instance.weight());
        detail.put("healthy", instance.healthy());
        detail.put("enabled", instance.enabled());
        detail.put("ephemeral", instance.ephemeral());
        detail.put("instanceId", instance.instanceId());
        detail.put("metadata", instance.metadata());
        return detail;
      }
    }
    throw new EdgeRefusal(ErrorCode.NOT_FOUND, "no instance " + ip + ":" + port + " in cluster " + cluster + " of "
        + name.grouped() + " in namespace " + name.namespace());
  }

  /**
   * A beat. With its {@code beat} document (Nacos 1's client sends one) an instance this server
   * does not hold is registered again from it, as Nacos does; a light beat (the instance's address
   * only) is answered {@code 20404} instead, and its client registers again.
   */
  private Map<String, Object> beat(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    NacosInstance beat = params.beat();
    InstanceBody instance = InstanceBody.ref(beat.ip(), beat.port() == null ? 0 : beat.port(), beat.clusterName());
    Answer answer = params.has("beat")
        ? layer.beat(layer.nacosHttp(), principal, Unpooled.wrappedBuffer(json.encode(new Heartbeat(name.namespace(),
            name.group(), name.service(), instance))))
        : layer.renew(layer.nacosHttp(), principal, new ServiceRef(name.namespace(), name.group(), name.service()),
            instance);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("clientBeatInterval", BEAT_INTERVAL_MILLIS);
    reply.put("lightBeatEnabled", true);
    if (answer instanceof Answer.Refused refused) {
      if (refused.error().code() != ErrorCode.NOT_FOUND) {
        throw new EdgeRefusal(refused.error().code(), refused.error().message());
      }
      reply.put("code", BEAT_UNKNOWN);
    } else {
      reply.put("code", BEAT_OK);
    }
    return reply;
  }

  /** {@code instance/list}: the view as Nacos answers it, {@code name} being the grouped name. */
  private Map<String, Object> list(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    String clusters = params.text("clusters", "");
    ServiceSnapshot now = layer.snapshot(principal, NacosModel.query(name, clusters, params.bool("healthyOnly",
        false)));
    ServiceInfo info = NacosModel.serviceInfo(now, clusters, clock.millis());
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("name", name.grouped());
    reply.put("groupName", name.group());
    reply.put("clusters", clusters);
    reply.put("cacheMillis", info.cacheMillis());
    reply.put("hosts", info.hosts());
    reply.put("lastRefTime", info.lastRefTime());
    reply.put("checksum", "");
    reply.put("allIPs", false);
    reply.put("reachProtectionThreshold", info.reachProtectionThreshold());
    reply.put("valid", true);
    return reply;
  }

  // ---- services ----

  private Map<String, Object> service(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    Answer answer = layer.view(principal, new Query(name.namespace(), name.group(), name.service(), null, null));
    if (answer instanceof Answer.Refused refused) {
      throw new EdgeRefusal(refused.error().code(), refused.error().message());
    }
    ServiceSnapshot snapshot = ((Answer.Served) answer).body(ServiceSnapshot.class);
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("namespaceId", name.namespace());
    reply.put("groupName", name.group());
    reply.put("name", name.service());
    reply.put("ephemeral", snapshot.ephemeral());
    reply.put("protectionTriggered", snapshot.protectionTriggered());
    reply.put("selector", Map.of("type", "none"));
    reply.put("clusters", snapshot.instances().stream().map(InstanceBody::cluster).distinct().sorted().toList());
    return reply;
  }

  private Mono<Answer> define(@Nullable Principal principal, Params params, Route route) {
    NacosModel.Name name = params.name();
    ServiceDefinition definition = new ServiceDefinition(name.namespace(), name.group(), name.service(),
        params.has("ephemeral") ? params.bool("ephemeral", true) : null,
        params.has("protectThreshold") ? params.decimal("protectThreshold") : null,
        params.has("metadata") ? params.metadata("metadata") : null);
    return succeeded(layer.call(layer.nacosHttp(), principal, route, Unpooled.wrappedBuffer(json.encode(definition))));
  }

  private Mono<Answer> delete(@Nullable Principal principal, Params params) {
    NacosModel.Name name = params.name();
    return succeeded(layer.call(layer.nacosHttp(), principal, Route.ADMIN_SERVICE_DELETE,
        Unpooled.wrappedBuffer(json.encode(new ServiceRef(name.namespace(), name.group(), name.service())))));
  }

  /** {@code service/list}: Nacos 1 names the page {@code doms}, Nacos 2 {@code services}. */
  private Map<String, Object> services(@Nullable Principal principal, Params params, Version version) {
    NacosModel.Name name = NacosModel.name(params.text("namespaceId", null), params.text("groupName", null), "-");
    int pageNo = params.integer("pageNo", 1);
    int pageSize = params.integer("pageSize", 20);
    ServiceList page = layer.serviceList(principal, new ServiceListQuery(name.namespace(), name.group(), null, pageNo,
        Math.min(pageSize, 1_000)));
    List<String> names = page.services().stream().map(ServiceSummary::service).toList();
    return Map.of("count", page.total(), version == Version.V1 ? "doms" : "services", names);
  }

  // ---- login and credentials ----

  /**
   * Nacos's login: the password is one of the registry's tokens (a token-file token or a signed
   * one) and is handed back as the access token; the user name is not checked. With no credentials
   * configured, anyone logs in and gets an empty token.
   */
  private Reply login(Params params, HttpServerRequest request) {
    Map<String, Object> reply = new LinkedHashMap<>();
    String password = params.text("password", "");
    String username = params.text("username", "");
    if (!access.required()) {
      reply.put("accessToken", "");
      reply.put("tokenTtl", TOKEN_TTL_SECONDS);
      reply.put("globalAdmin", false);
      reply.put("username", username);
      return json(HttpResponseStatus.OK, reply);
    }
    if (password.isEmpty()) {
      throw new EdgeRefusal(ErrorCode.UNAUTHENTICATED, "password is required: give one of the registry's tokens");
    }
    Credential credential = access.authenticate(password, request.remoteAddress());
    long ttl = credential.expiresAt() == null ? TOKEN_TTL_SECONDS
        : Math.max(1, (credential.expiresAt().toEpochMilli() - clock.millis()) / 1000);
    reply.put("accessToken", password);
    reply.put("tokenTtl", ttl);
    reply.put("globalAdmin", false);
    reply.put("username", credential.principal().name());
    return json(HttpResponseStatus.OK, reply);
  }

  /** The principal of the request's {@code accessToken} (parameter or header) or bearer token; null without one. */
  private @Nullable Principal principal(Params params, HttpServerRequest request) {
    if (!access.required()) {
      return null;
    }
    String token = params.text("accessToken", request.requestHeaders().get("accessToken"));
    String authorization = request.requestHeaders().get(HttpHeaderNames.AUTHORIZATION);
    if ((token == null || token.isEmpty()) && authorization != null && authorization.startsWith("Bearer ")) {
      token = authorization.substring("Bearer ".length()).trim();
    }
    if (token == null || token.isEmpty()) {
      return null; // refused by the layer, which names the permission wanted
    }
    return access.authenticate(token, request.remoteAddress()).principal();
  }

  // ---- answers ----

  private static Mono<Answer> succeeded(Mono<Answer> answer) {
    return answer.flatMap(done -> done instanceof Answer.Refused refused
        ? Mono.error(new EdgeRefusal(refused.error().code(), refused.error().message()))
        : Mono.just(done));
  }

  private static Reply ok(Version version, Object data) {
    if (version == Version.V2) {
      Map<String, Object> wrapped = new LinkedHashMap<>();
      wrapped.put("code", 0);
      wrapped.put("message", "success");
      wrapped.put("data", data);
      return json(HttpResponseStatus.OK, wrapped);
    }
    if (data instanceof String text) {
      return new Reply(HttpResponseStatus.OK, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }
    return json(HttpResponseStatus.OK, data);
  }

  private static Reply json(HttpResponseStatus status, Object body) {
    return new Reply(status, "application/json", NacosJson.write(body));
  }

  private static Mono<Void> write(HttpServerResponse response, Reply reply) {
    return response.status(reply.status())
        .header(HttpHeaderNames.CONTENT_TYPE, reply.contentType())
        .sendByteArray(Mono.just(reply.body()))
        .then();
  }

  /**
   * A refusal as Nacos words it: Nacos 1 as {@code caused: <message>} with the HTTP status, Nacos
   * 2 as its JSON result with its code (10000 a bad parameter, 20004 not found, 403 no right).
   */
  private static Mono<Void> refuse(HttpServerResponse response, Version version, Throwable error) {
    WireError refusal = ((Answer.Refused) Answer.refusal(error)).error();
    HttpResponseStatus status = HttpResponseStatus.valueOf(refusal.httpStatus());
    if (version == Version.V1) {
      return write(response, new Reply(status, "text/plain; charset=utf-8",
          ("caused: " + refusal.message()).getBytes(StandardCharsets.UTF_8)));
    }
    int code = switch (refusal.code()) {
      case INVALID_PARAM, SERVICE_TYPE_MISMATCH -> 10_000;
      case NOT_FOUND -> 20_004;
      case FORBIDDEN, UNAUTHENTICATED -> 403;
      default -> 30_000;
    };
    Map<String, Object> body = new HashMap<>();
    body.put("code", code);
    body.put("message", refusal.message());
    body.put("data", null);
    return write(response, new Reply(status, "application/json", NacosJson.write(body)));
  }

  /** A request's parameters: its query string and its form body, as Nacos reads them. */
  private record Params(Map<String, List<String>> values) {
    static Params of(HttpServerRequest request, byte[] body) {
      Map<String, List<String>> values = new HashMap<>(new QueryStringDecoder(request.uri()).parameters());
      String type = request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE, "");
      if (body.length > 0 && (type.isEmpty() || type.startsWith("application/x-www-form-urlencoded"))) {
        new QueryStringDecoder(new String(body, StandardCharsets.UTF_8), false).parameters()
            .forEach((name, given) -> values.merge(name, given, (a, b) -> b));
      }
      return new Params(values);
    }

    boolean has(String name) {
      return values.containsKey(name);
    }

    @Nullable String text(String name, @Nullable String fallback) {
      List<String> given = values.get(name);
      return given == null || given.isEmpty() ? fallback : given.get(0);
    }

    String required(String name) {
      String value = text(name, null);
      if (value == null || value.isBlank()) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, name + " is required");
      }
      return value;
    }

    int integer(String name, int fallback) {
      String value = text(name, null);
      if (value == null || value.isBlank()) {
        return fallback;
      }
      try {
        return Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, name + " must be a whole number, not '" + value + "'");
      }
    }

    double decimal(String name) {
      String value = required(name);
      try {
        return Double.parseDouble(value.trim());
      } catch (NumberFormatException e) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, name + " must be a number, not '" + value + "'");
      }
    }

    boolean bool(String name, boolean fallback) {
      String value = text(name, null);
      if (value == null || value.isBlank()) {
        return fallback;
      }
      return switch (value.trim().toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> throw new EdgeRefusal(ErrorCode.INVALID_PARAM, name + " must be true or false, not '" + value
            + "'");
      };
    }

    /** A metadata parameter: Nacos's JSON object of strings (or its {@code k=v,k=v} form). */
    Map<String, String> metadata(String name) {
      String value = text(name, "");
      if (value.isBlank()) {
        return Map.of();
      }
      if (value.trim().startsWith("{")) {
        try {
          Map<String, Object> parsed = NacosJson.MAP.readValue(value);
          Map<String, String> metadata = new LinkedHashMap<>();
          parsed.forEach((key, entry) -> metadata.put(key, entry == null ? "" : String.valueOf(entry)));
          return metadata;
        } catch (IOException e) {
          throw new EdgeRefusal(ErrorCode.INVALID_PARAM, name + " must be a JSON object of strings: "
              + NacosJson.problem(e));
        }
      }
      Map<String, String> metadata = new LinkedHashMap<>();
      for (String pair : value.split(",")) {
        int equals = pair.indexOf('=');
        if (equals < 1) {
          throw new EdgeRefusal(ErrorCode.INVALID_PARAM, name + " must be a JSON object or k=v pairs separated by "
              + "commas, not '" + value + "'");
        }
        metadata.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
      }
      return metadata;
    }

    NacosModel.Name name() {
      return NacosModel.name(text("namespaceId", null), text("groupName", null), required("serviceName"));
    }

    NacosInstance instance() {
      String ip = required("ip");
      int port = integer("port", -1);
      if (port < 0) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "port is required");
      }
      return new NacosInstance(null, ip, port, has("weight") ? decimal("weight") : null, null,
          has("enabled") ? bool("enabled", true) : null, null, text("clusterName", text("cluster", null)), null,
          has("metadata") ? metadata("metadata") : null);
    }

    /** A beat's instance: the {@code beat} parameter's JSON ({@code ip}, {@code port}, {@code cluster}), or the parameters. */
    NacosInstance beat() {
      String beat = text("beat", null);
      if (beat == null || beat.isBlank()) {
        return instance();
      }
      try {
        Map<String, Object> parsed = NacosJson.MAP.readValue(beat);
        Object ip = parsed.get("ip");
        Object port = parsed.get("port");
        Object cluster = parsed.get("cluster");
        if (!(ip instanceof String) || !(port instanceof Number)) {
          throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "beat must name the instance: its ip and port");
        }
        return new NacosInstance(null, (String) ip, ((Number) port).intValue(), null, null, null, null,
            cluster instanceof String named ? named : null, null, null);
      } catch (IOException e) {
        throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "beat must be a JSON object: " + NacosJson.problem(e));
      }
    }
  }
}
