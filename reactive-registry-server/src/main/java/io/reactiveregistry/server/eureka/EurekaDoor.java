package io.reactiveregistry.server.eureka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceOverride;
import io.reactiveregistry.protocol.message.InstanceRef;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.Registration;
import io.reactiveregistry.protocol.message.ServiceRef;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.errors.ErrorTable;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.eureka.EurekaTree.Format;
import io.reactiveregistry.server.request.Answer;
import io.reactiveregistry.server.request.Catalog;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.security.Principal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Eureka's REST API, under {@code /eureka/} (Spring Cloud Netflix's default) and
 * {@code /eureka/v2/} (Netflix's): an Eureka client registers, renews, cancels and fetches here as
 * it does with an Eureka server, in JSON or XML. The door translates; every request goes through
 * the {@link RequestLayer} like any other door's, which decides permissions (tokens, as Bearer or as
 * Basic's password) and answers. Applications are the services of one namespace and group.
 * Eureka's own peer replication is refused: this registry's members replicate by their own means.
 */
public final class EurekaDoor {
  /** Where the door's applications live: the services of one namespace and group. */
  public record Settings(String namespace, String group) {
    public static final Settings DEFAULTS = new Settings("public", "DEFAULT_GROUP");
  }

  /** The header an Eureka server sets on what it replicates to its peers. */
  static final String REPLICATION_HEADER = "x-netflix-discovery-replication";
  private static final JsonCodec json = JsonCodec.json();

  private final RequestLayer layer;
  private final String namespace;
  private final String group;
  private final InstanceIndex index;
  private final Counter fullFetches;
  private final Counter deltaFetches;
  private final Renderings renderings = new Renderings();
  private final Scheduler renderer;

  /** @param renderer where whole-registry documents are rendered: CPU-bound workers, not an event loop */
  public EurekaDoor(RequestLayer layer, Settings settings, MeterRegistry meters, Scheduler renderer) {
    this.layer = layer;
    this.renderer = renderer;
    this.namespace = settings.namespace();
    this.group = settings.group();
    this.index = new InstanceIndex(200_000);
    this.fullFetches = Counter.builder("registry.eureka.fetches").tag("kind", "full")
        .description("Eureka clients' fetches of the whole registry").register(meters);
    this.deltaFetches = Counter.builder("registry.eureka.fetches").tag("kind", "delta")
        .description("Eureka clients' fetches of the recent changes").register(meters);
  }

  /** A request refused before it reached the door (a token not valid), answered as the door answers. */
  public static Publisher<Void> refuse(HttpServerResponse response, RuntimeException refusal) {
    return Reply.refused(refusal).send(response, false);
  }

  /** Whether a request's URI (its path, and any query) is the door's. */
  public static boolean serves(String uri) {
    return uri.startsWith("/eureka") && (uri.length() == 7 || uri.charAt(7) == '/' || uri.charAt(7) == '?');
  }

  /**
   * Answers a request to the door: {@code principal} is its caller's (null without credentials
   * configured), {@code body} its body, read whole within the HTTP door's bound.
   */
  public Publisher<Void> handle(HttpServerRequest request, HttpServerResponse response, @Nullable Principal principal,
      byte[] body) {
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    Format format = accepted(request);
    try {
      if (request.requestHeaders().contains(REPLICATION_HEADER)) {
        throw new EurekaRefusal(403, "this registry is not an Eureka peer: its members replicate by their own "
            + "means; list it as a client's defaultZone, not in an Eureka server's peers");
      }
      List<String> path = segments(uri.path());
      HttpMethod method = request.method();
      Call call = new Call(principal, format, uri.parameters(), body, request.requestHeaders()
          .get(HttpHeaderNames.CONTENT_TYPE), Renderings.acceptsGzip(request.requestHeaders()
          .get(HttpHeaderNames.ACCEPT_ENCODING)));
      return respond(request, response, route(method, path, call));
    } catch (RuntimeException e) {
      return respond(request, response, Mono.just(Reply.refused(e)));
    }
  }

  /** What a request carries besides its path and method, and whether its caller takes gzip. */
  private record Call(@Nullable Principal principal, Format format, Map<String, List<String>> params, byte[] body,
      @Nullable String contentType, boolean gzip) {
    @Nullable String param(String name) {
      List<String> values = params.get(name);
      return values == null || values.isEmpty() ? null : values.get(0);
    }
  }

  private Mono<Reply> route(HttpMethod method, List<String> path, Call call) {
    int n = path.size();
    String first = n == 0 ? "" : path.get(0);
    if (first.equals("apps") && n == 1) {
      allow(method, HttpMethod.GET);
      return full(call);
    }
    if (first.equals("apps") && n == 2 && path.get(1).equals("delta")) {
      return only(method, HttpMethod.GET, () -> delta(call));
    }
    if (first.equals("apps") && n == 2) {
      String app = path.get(1);
      if (method.equals(HttpMethod.POST)) {
        return register(app, call);
      }
      return only(method, HttpMethod.GET, () -> application(app, call), HttpMethod.POST);
    }
    if (first.equals("apps") && n == 3) {
      String app = path.get(1);
      String id = path.get(2);
      if (method.equals(HttpMethod.PUT)) {
        return Mono.fromSupplier(() -> renew(app, id, call));
      }
      if (method.equals(HttpMethod.DELETE)) {
        return cancel(app, id, call);
      }
      return only(method, HttpMethod.GET, () -> instance(app, id, call), HttpMethod.PUT, HttpMethod.DELETE);
    }
    if (first.equals("apps") && n == 4 && path.get(3).equals("status")) {
      if (method.equals(HttpMethod.PUT)) {
        return overrideStatus(path.get(1), path.get(2), call);
      }
      if (method.equals(HttpMethod.DELETE)) {
        return removeStatusOverride(path.get(1), path.get(2), call);
      }
      throw notAllowed(method, "PUT, DELETE");
    }
    if (first.equals("apps") && n == 4 && path.get(3).equals("metadata")) {
      if (method.equals(HttpMethod.PUT)) {
        return updateMetadata(path.get(1), path.get(2), call);
      }
      throw notAllowed(method, "PUT");
    }
    if (first.equals("instances") && n == 2) {
      return only(method, HttpMethod.GET, () -> instance(null, path.get(1), call));
    }
    if ((first.equals("vips") || first.equals("svips")) && n == 2) {
      boolean secure = first.equals("svips");
      String vip = path.get(1);
      return only(method, HttpMethod.GET, () -> vip(vip, secure, call));
    }
    throw new EurekaRefusal(404, "no such Eureka resource: /" + String.join("/", path));
  }

  // ---- reads ----

  /**
   * The whole registry. The catalog is read here, on the event loop (kept between changes, it is a
   * lookup), and so is a document already rendered from it: every Eureka client polls the same one,
   * and sending it needs no other thread. Only a document to render, or plain bytes still to put
   * together, go to the renderer.
   */
  private Mono<Reply> full(Call call) {
    fullFetches.increment();
    Catalog catalog = layer.catalog(call.principal(), namespace, group);
    Reply kept = renderings.keptFull(catalog, call.format());
    if (kept != null && (kept.body() == null || kept.body().sendsGzipped(call.gzip()) || kept.body().hasPlain())) {
      return Mono.just(kept);
    }
    return Mono.fromSupplier(() -> {
      Reply reply = renderings.full(catalog, call.format());
      if (!call.gzip() && reply.body() != null) {
        reply.body().plain(); // put together here, on the renderer, not on the event loop that sends it
      }
      return reply;
    }).subscribeOn(renderer);
  }

  private Reply delta(Call call) {
    deltaFetches.increment();
    Catalog.Delta delta = layer.delta(call.principal(), namespace, group);
    return renderings.delta(delta, call.format());
  }

  private Reply application(String app, Call call) {
    List<ServiceSnapshot> services = servicesOf(layer.catalog(call.principal(), namespace, group), app);
    if (services.isEmpty()) {
      throw new EurekaRefusal(404, "no application " + app.toUpperCase(Locale.ROOT) + " in " + namespace + "/" + group);
    }
    return Reply.document("application", EurekaViews.application(app.toUpperCase(Locale.ROOT), services),
        call.format());
  }

  private Reply instance(@Nullable String app, String id, Call call) {
    Catalog catalog = layer.catalog(call.principal(), namespace, group);
    InstanceIndex.Known known = InstanceIndex.find(catalog, app, id);
    if (known == null) {
      throw new EurekaRefusal(404, "no instance " + id + (app == null ? "" : " of application "
          + app.toUpperCase(Locale.ROOT)) + " in " + namespace + "/" + group);
    }
    return Reply.document("instance", EurekaViews.instance(known.service(), known.instance(), null), call.format());
  }

  private Reply vip(String vip, boolean secure, Call call) {
    Catalog catalog = layer.catalog(call.principal(), namespace, group);
    Predicate<InstanceBody> matches = instance -> {
      Map<String, String> metadata = instance.metadata() == null ? Map.of() : instance.metadata();
      String addresses = metadata.get(EurekaInstance.PREFIX + (secure ? "secureVipAddress" : "vipAddress"));
      return addresses != null && Arrays.stream(addresses.split(",")).map(String::trim).anyMatch(vip::equals);
    };
    // An instance no Eureka client registered has its service's name as its VIP addresses.
    Catalog named = new Catalog(catalog.namespace(), catalog.group(), catalog.revision(), catalog.services().stream()
        .map(service -> new ServiceSnapshot(service.namespace(), service.group(), service.service(),
            service.ephemeral(), service.revision(), service.protectionTriggered(), service.instances().stream()
                .filter(instance -> instance.metadata() != null && instance.metadata().containsKey(EurekaInstance.ID)
                    ? matches.test(instance) : service.service().equals(vip))
                .toList()))
        .toList());
    return Reply.document("applications", EurekaViews.applications(named), call.format());
  }

  private static List<ServiceSnapshot> servicesOf(Catalog catalog, String app) {
    List<ServiceSnapshot> services = new ArrayList<>();
    for (ServiceSnapshot service : catalog.services()) {
      // A service with no instances is no application: Eureka's server forgets an app with its last instance.
      if (!service.instances().isEmpty() && EurekaViews.app(service.service()).equals(app.toUpperCase(Locale.ROOT))) {
        services.add(service);
      }
    }
    return services;
  }

  // ---- writes ----

  private Mono<Reply> register(String app, Call call) {
    Format sent = call.contentType() != null && call.contentType().toLowerCase(Locale.ROOT).contains("xml")
        ? Format.XML : Format.JSON;
    EurekaInstance info = EurekaInstance.read(EurekaTree.read(call.body(), sent), app);
    String service = EurekaInstance.service(info.app());
    Registration registration = new Registration(namespace, group, service, true, info.toInstance());
    return layer.register(layer.eureka(), call.principal(), registration)
        .flatMap(answer -> {
          if (!(answer instanceof Answer.Served served)) {
            return Mono.just(Reply.refused(answer));
          }
          String registered = served.body(RegisterResult.class).instanceId();
          InstanceIndex.Known before = index.put(info.app(), info.id(), new InstanceIndex.Known(service,
              ref(registered, info.ipAddr(), registration.instance().port())));
          if (before == null || before.instance().instanceId().equals(registered)) {
            return Mono.just(Reply.status(204));
          }
          // The same Eureka instance at a new address: the old one is this client's no more.
          return deregister(before, call).thenReturn(Reply.status(204));
        });
  }

  private Reply renew(String app, String id, Call call) {
    InstanceIndex.Known known = index.get(app, id);
    boolean cached = known != null;
    if (known == null) {
      known = lookUp(app, id, call);
    }
    Answer answer = layer.renew(layer.eureka(), call.principal(), serviceRef(known.service()),
        known.instance().instanceId());
    if (cached && answer instanceof Answer.Refused refused && refused.error().code() == ErrorCode.NOT_FOUND) {
      index.remove(app, id); // gone, or registered anew elsewhere: what the catalog says now decides
      InstanceIndex.Known now = InstanceIndex.find(layer.catalog(call.principal(), namespace, group), app, id);
      if (now == null || now.instance().instanceId().equals(known.instance().instanceId())) {
        return Reply.refused(answer);
      }
      answer = layer.renew(layer.eureka(), call.principal(), serviceRef(now.service()), now.instance().instanceId());
    }
    return answer instanceof Answer.Served ? Reply.status(200) : Reply.refused(answer);
  }

  private Mono<Reply> cancel(String app, String id, Call call) {
    InstanceIndex.Known known = known(app, id, call);
    return deregister(known, call).map(answer -> {
      index.remove(app, id);
      if (!(answer instanceof Answer.Served served)) {
        return Reply.refused(answer);
      }
      boolean removed = served.body(DeregisterResult.class).removed();
      return removed ? Reply.status(200) : Reply.refused(unknownInstance(app, id));
    });
  }

  private Mono<Answer> deregister(InstanceIndex.Known known, Call call) {
    InstanceBody instance = known.instance();
    InstanceRef ref = new InstanceRef(namespace, group, known.service(),
        InstanceBody.ref(instance.ip(), instance.port(), instance.cluster()));
    return layer.call(layer.eureka(), call.principal(), Route.INSTANCE_DEREGISTER,
        Unpooled.wrappedBuffer(json.encode(ref)));
  }

  /** {@code PUT .../status?value=OUT_OF_SERVICE}: an override; only {@code UP} leaves the instance taking traffic. */
  private Mono<Reply> overrideStatus(String app, String id, Call call) {
    String value = call.param("value");
    if (value == null || !EurekaInstance.STATUSES.contains(value.toUpperCase(Locale.ROOT))) {
      throw new EurekaRefusal(400, "value must be one of UP, DOWN, STARTING, OUT_OF_SERVICE, UNKNOWN, not "
          + (value == null ? "missing" : "'" + value + "'"));
    }
    String status = value.toUpperCase(Locale.ROOT);
    InstanceIndex.Known known = known(app, id, call);
    Map<String, String> metadata = Map.of(EurekaInstance.OVERRIDDEN_STATUS, status);
    return layer.amend(layer.eureka(), call.principal(), patch(known, status.equals("UP"), metadata))
        .map(answer -> answer instanceof Answer.Served ? Reply.status(200) : Reply.refused(answer));
  }

  /** {@code DELETE .../status}: the status override goes; the status the instance reports counts again. */
  private Mono<Reply> removeStatusOverride(String app, String id, Call call) {
    InstanceIndex.Known known = known(app, id, call);
    return layer.restore(layer.eureka(), call.principal(), patch(known, null, null),
            List.of(EurekaInstance.OVERRIDDEN_STATUS))
        .map(answer -> answer instanceof Answer.Served ? Reply.status(200) : Reply.refused(answer));
  }

  /** {@code PUT .../metadata?k=v}: laid over the instance's metadata, as an override. */
  private Mono<Reply> updateMetadata(String app, String id, Call call) {
    if (call.params().isEmpty()) {
      throw new EurekaRefusal(400, "give the metadata to set as query parameters: ?key=value");
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    call.params().forEach((key, values) -> {
      if (key.startsWith(EurekaInstance.PREFIX) || EurekaInstance.TIMING_KEYS.contains(key)) {
        throw new EurekaRefusal(400, "metadata '" + key + "' is reserved: the door keeps the InstanceInfo's own "
            + "fields under 'eureka.' and its lease under 'preserved.'");
      }
      metadata.put(key, values.isEmpty() ? "" : values.get(values.size() - 1));
    });
    InstanceIndex.Known known = known(app, id, call);
    return layer.amend(layer.eureka(), call.principal(), patch(known, null, metadata))
        .map(answer -> answer instanceof Answer.Served ? Reply.status(200) : Reply.refused(answer));
  }

  /**
   * The instance an Eureka client names, from the index of what this door registered, else from
   * the catalog: looking through the catalog after every change would cost a snapshot of the
   * changed service per request, and a burst of cancels would cost the square of its size.
   */
  private InstanceIndex.Known known(String app, String id, Call call) {
    InstanceIndex.Known known = index.get(app, id);
    return known != null ? known : lookUp(app, id, call);
  }

  /** The instance an Eureka client names, from the catalog; 404 when there is none. */
  private InstanceIndex.Known lookUp(String app, String id, Call call) {
    InstanceIndex.Known known = InstanceIndex.find(layer.catalog(call.principal(), namespace, group), app, id);
    if (known == null) {
      throw unknownInstance(app, id);
    }
    return known;
  }

  private InstanceOverride patch(InstanceIndex.Known known, @Nullable Boolean enabled,
      @Nullable Map<String, String> metadata) {
    InstanceBody instance = known.instance();
    return new InstanceOverride(namespace, group, known.service(),
        InstanceBody.ref(instance.ip(), instance.port(), instance.cluster()), enabled, null, metadata);
  }

  private ServiceRef serviceRef(String service) {
    return new ServiceRef(namespace, group, service);
  }

  private static InstanceBody ref(String instanceId, String ip, Integer port) {
    String cluster = instanceId.substring(instanceId.lastIndexOf('#') + 1);
    return new InstanceBody(instanceId, ip, port, cluster, null, null, null, null, null);
  }

  private EurekaRefusal unknownInstance(String app, String id) {
    return new EurekaRefusal(404, "no instance " + id + " of application " + app.toUpperCase(Locale.ROOT) + " in "
        + namespace + "/" + group + ": register it");
  }

  // ---- framing ----

  /**
   * A read, when the method is {@code allowed} (otherwise 405 naming it and {@code others}). Reads
   * look through the catalog and render documents: a whole-registry one takes tens of milliseconds
   * after a change (11,000 instances: 40-50 ms, mostly gzip), so they run on the CPU-bound
   * workers, not on the event loop that serves other callers' renewals.
   */
  private Mono<Reply> only(HttpMethod method, HttpMethod allowed, java.util.function.Supplier<Reply> read,
      HttpMethod... others) {
    allow(method, allowed, others);
    return Mono.fromSupplier(read).subscribeOn(renderer);
  }

  /** Refuses a request whose method is not {@code allowed}: 405, naming it and {@code others}. */
  private static void allow(HttpMethod method, HttpMethod allowed, HttpMethod... others) {
    if (!method.equals(allowed)) {
      List<String> all = new ArrayList<>();
      all.add(allowed.name());
      Arrays.stream(others).map(HttpMethod::name).forEach(all::add);
      throw notAllowed(method, String.join(", ", all));
    }
  }

  private static EurekaRefusal notAllowed(HttpMethod method, String allowed) {
    return new AllowedRefusal(method + " is not served here; use " + allowed, allowed);
  }

  /** A 405, with the methods to use. */
  private static final class AllowedRefusal extends EurekaRefusal {
    final String allowed;

    AllowedRefusal(String message, String allowed) {
      super(405, message);
      this.allowed = allowed;
    }
  }

  /** JSON when the caller accepts it, else XML: Eureka's server decides so. */
  private static Format accepted(HttpServerRequest request) {
    String accept = request.requestHeaders().get(HttpHeaderNames.ACCEPT);
    return accept != null && accept.toLowerCase(Locale.ROOT).contains("json") ? Format.JSON : Format.XML;
  }

  private static List<String> segments(String path) {
    String rest = path.startsWith("/eureka/v2/") || path.equals("/eureka/v2") ? path.substring("/eureka/v2".length())
        : path.substring("/eureka".length());
    List<String> segments = new ArrayList<>();
    for (String segment : rest.split("/")) {
      if (!segment.isEmpty()) {
        segments.add(segment);
      }
    }
    return segments;
  }

  private static Publisher<Void> respond(HttpServerRequest request, HttpServerResponse response, Mono<Reply> reply) {
    boolean gzip = Renderings.acceptsGzip(request.requestHeaders().get(HttpHeaderNames.ACCEPT_ENCODING));
    return reply.onErrorResume(RuntimeException.class, e -> Mono.just(Reply.refused(e)))
        .flatMap(answer -> answer.send(response, gzip));
  }

  /** What the door answers: a status, and a document or an error. */
  record Reply(int status, @Nullable Rendered body, @Nullable String allow) {
    static Reply status(int status) {
      return new Reply(status, null, null);
    }

    static Reply document(String root, Map<String, Object> content, Format format) {
      return new Reply(200, Rendered.of(EurekaTree.write(root, content, format), format.contentType), null);
    }

    static Reply refused(Answer answer) {
      return error(((Answer.Refused) answer).error());
    }

    static Reply refused(Throwable e) {
      if (e instanceof EurekaRefusal refusal) {
        ErrorCode code = switch (refusal.status()) {
          case 404 -> ErrorCode.NOT_FOUND;
          case 403 -> ErrorCode.FORBIDDEN;
          case 405 -> ErrorCode.UNKNOWN_ROUTE;
          default -> ErrorCode.INVALID_PARAM;
        };
        byte[] body = json.encode(new ErrorBody(code.name(), refusal.getMessage()));
        return new Reply(refusal.status(), Rendered.of(body, "application/json"),
            refusal instanceof AllowedRefusal allowed ? allowed.allowed : null);
      }
      return error(ErrorTable.of(e));
    }

    private static Reply error(WireError error) {
      return new Reply(error.httpStatus(), Rendered.of(json.encode(error.body()), "application/json"), null);
    }

    Mono<Void> send(HttpServerResponse response, boolean gzip) {
      response.status(HttpResponseStatus.valueOf(status));
      if (allow != null) {
        response.header(HttpHeaderNames.ALLOW, allow);
      }
      if (status == 401) {
        response.header(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"registry\", Bearer");
      }
      if (body == null) {
        return response.header(HttpHeaderNames.CONTENT_LENGTH, "0").send().then();
      }
      response.header(HttpHeaderNames.CONTENT_TYPE, body.contentType());
      if (body.sendsGzipped(gzip)) {
        response.header(HttpHeaderNames.CONTENT_ENCODING, "gzip");
      }
      // The plain bytes only when they are sent: a full fetch's are put together on first demand.
      return response.send(Mono.fromSupplier(() -> body.content(gzip))).then();
    }
  }
}
