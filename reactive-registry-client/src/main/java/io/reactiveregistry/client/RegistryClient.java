package io.reactiveregistry.client;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.Query;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceListQuery;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.protocol.rules.Addresses;
import io.reactiveregistry.protocol.rules.InstanceRules;
import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.protocol.rules.RuleViolation;
import io.reactiveregistry.protocol.trace.TraceParent;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * The registry client of a reactive application: one connection to one of the configured
 * servers, kept alive across restarts and failovers.
 *
 * <pre>{@code
 * RegistryClient registry = RegistryClient.builder()
 *     .servers("tcp://127.0.0.1:7070")
 *     .clientName("orders-app")
 *     .build();
 * Registration me = registry.register(ServiceName.of("orders"), InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of()))
 *     .block();
 * registry.watch(ServiceName.of("payments")).subscribe(view -> ...);
 * InstanceBody target = registry.choose(ServiceName.of("payments")).block();
 * registry.close().block();
 * }</pre>
 *
 * <p>Every method is non-blocking. Refusals come out as {@link RegistryErrorException} with the
 * contract's code; no server within the request timeout as {@link RegistryUnavailableException}.
 */
public final class RegistryClient {
  /** The largest page {@code service.list} gives. */
  private static final int LIST_PAGE_SIZE = 1_000;

  private final ConnectionManager connections;
  private final Registrar registrar;
  private final Watches watches;
  private final CatalogWatches catalogs;
  private final InstanceChooser chooser;
  private final LastSeen lastSeen = new LastSeen();
  private final Duration requestTimeout;
  private final boolean deregisterOnClose;
  private final ClientMeters meters;
  /** The trace the subscribing thread is in, for a request whose Reactor context names none; null: none. */
  private final @Nullable Supplier<@Nullable String> ambientTrace;

  private RegistryClient(Builder builder) {
    this.ambientTrace = builder.ambientTrace;
    ClientMeters meters = ClientMeters.of(builder.meterRegistry);
    this.meters = meters;
    this.connections = new ConnectionManager(builder.servers, builder.clientName, builder.zone, builder.token,
        builder.tls, builder.minBackoff, builder.maxBackoff, builder.connectTimeout, builder.requestTimeout,
        builder.random, meters);
    this.registrar = new Registrar(connections, builder.requestTimeout, builder.minBackoff, builder.maxBackoff,
        meters);
    this.watches = new Watches(connections, builder.watchGracePeriod, builder.reconnectSettle, builder.minBackoff,
        builder.maxBackoff, builder.cacheDirectory == null ? null : new ViewCache(builder.cacheDirectory,
            builder.cacheMaxAge, java.time.Clock.systemUTC(), Schedulers.boundedElastic()),
        builder.pushEmptyProtection);
    this.catalogs = new CatalogWatches(connections, builder.minBackoff, builder.maxBackoff);
    this.chooser = new InstanceChooser(builder.random, builder.zone);
    this.requestTimeout = builder.requestTimeout;
    this.deregisterOnClose = builder.deregisterOnClose;
    meters.bind(registrar::count, watches::count);
    connections.start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Puts a request in the caller's trace: {@code client.register(...).contextWrite(RegistryClient
   * .inTrace(traceparent))} sends the W3C {@code traceparent} value with the request (and with the
   * registration's first request only: heartbeats and redos after a reconnect are not traced), so
   * that a server exporting spans makes its span a child of the caller's. An invalid value is
   * ignored, as W3C asks. With OpenTelemetry in the application, the value is the current span's
   * context formatted by its W3C propagator.
   */
  public static Function<Context, Context> inTrace(String traceparent) {
    return TraceParent.parse(traceparent).<Function<Context, Context>>map(trace -> context ->
        context.put(TraceParent.class, trace)).orElse(Function.identity());
  }

  /** Registers an ephemeral instance and keeps it registered until {@link Registration#deregister()}. */
  public Mono<Registration> register(ServiceName service, InstanceBody instance) {
    return register(service, instance, true);
  }

  /**
   * Registers an instance. A persistent one ({@code ephemeral = false}) is not heartbeated: the
   * server checks it itself and keeps it until it is deregistered. Registering an instance this
   * client already keeps (same service, address and cluster) replaces that registration: one
   * heartbeat stream and one redo per instance, the earlier handle no longer active, and the new
   * handle's {@link Registration#deregister()} removes it.
   */
  public Mono<Registration> register(ServiceName service, InstanceBody instance, boolean ephemeral) {
    return traced(Mono.defer(() -> registrar.register(service, ephemeral, checked(instance))));
  }

  /**
   * Registers {@code instances} as this client's whole set of ephemeral instances in
   * {@code service}, in one request (Nacos's batch registration): instances of an earlier batch
   * left out are removed, and the batch replaces this client's earlier one for the service. One
   * heartbeat frame per interval keeps them all, and after a reconnect the batch is registered
   * again whole. Do not also {@link #register} single instances of that service: a batch is the
   * connection's complete set there. A bad instance refuses the whole batch, changing nothing.
   */
  public Mono<BatchRegistration> registerBatch(ServiceName service, List<InstanceBody> instances) {
    return traced(Mono.defer(() -> registrar.registerBatch(service,
        instances.stream().map(RegistryClient::checked).toList())));
  }

  /** The batches this client keeps registered, one per service. */
  public List<BatchRegistration> batches() {
    return new ArrayList<>(registrar.batches());
  }

  /** One snapshot of a service's view. */
  public Mono<ServiceSnapshot> query(ServiceName service) {
    return query(service, List.of(), false);
  }

  /**
   * One snapshot of a view. While no server can be reached (the connection lost, or attempts
   * failing), answered at once from the last answer to the same query or the last pushed view of
   * a watch, else failed at once with {@link RegistryUnavailableException}.
   */
  public Mono<ServiceSnapshot> query(ServiceName service, @Nullable List<String> clusters, boolean healthyOnly) {
    return Mono.defer(() -> query(service, selection(clusters, healthyOnly)));
  }

  /** One snapshot of the part of a service {@code selection} asks for; as {@link #query(ServiceName, List, boolean)}. */
  public Mono<ServiceSnapshot> query(ServiceName service, Selection selection) {
    return Mono.defer(() -> {
      Watches.Key key = new Watches.Key(service, selection);
      if (connections.unreachable()) {
        ServiceSnapshot known = lastSeen.snapshot(key, watches.last(key));
        return known != null ? Mono.just(known) : Mono.error(unreachable("a view of " + service));
      }
      Query query = new Query(service.namespace(), service.group(), service.service(), selection.clusters(),
          selection.healthyOnly(), selection.wireSelector());
      return ask(query)
          .doOnNext(snapshot -> lastSeen.snapshot(key, snapshot));
    });
  }

  /**
   * A linearizable read: one snapshot answered once the server has applied every durable change
   * its cluster had committed when the query arrived, so it shows every durable write
   * acknowledged before, on whichever member answers. It waits for a connection (never answers
   * from what the client saw last) and fails with {@code UNAVAILABLE} when the member cannot reach
   * a majority. A plain {@link #query} answers from the member's own state, which on a follower
   * may be a moment behind the leader.
   */
  public Mono<ServiceSnapshot> queryConsistent(ServiceName service, Selection selection) {
    return Mono.defer(() -> ask(new Query(service.namespace(), service.group(), service.service(),
        selection.clusters(), selection.healthyOnly(), selection.wireSelector()).consistently()));
  }

  /**
   * {@code request} in the trace of the thread that subscribes to it ({@link
   * Builder#traceContext}), unless its Reactor context names one already ({@link #inTrace}).
   */
  private <T> Mono<T> traced(Mono<T> request) {
    Supplier<@Nullable String> ambient = ambientTrace;
    if (ambient == null) {
      return request;
    }
    // contextWrite's function runs as the request is subscribed to, on the subscribing thread:
    // where a tracing library's current span is.
    return request.contextWrite(context -> {
      if (context.hasKey(TraceParent.class)) {
        return context;
      }
      String current = ambient.get();
      return current == null ? context : inTrace(current).apply(context);
    });
  }

  /** {@code service.query} on the live connection, waiting for one up to the request timeout. */
  private Mono<ServiceSnapshot> ask(Query query) {
    return traced(connections.link(requestTimeout)
        .flatMap(link -> meters.timed(Route.SERVICE_QUERY,
            Mono.deferContextual(context ->
                link.socket().requestResponse(Wire.payload(Route.SERVICE_QUERY.routeName(), query, context)))))
        .map(answer -> Wire.decode(answer, ServiceSnapshot.class))
        .timeout(requestTimeout)
        .onErrorMap(Wire::translate));
  }

  /**
   * The services of a namespace and group (a null group: every group), as their summaries, all
   * pages of {@code service.list} in order. While no server can be reached, the last list this
   * client read of them, at once (else {@link RegistryUnavailableException} at once).
   */
  public Flux<ServiceSummary> services(String namespace, @Nullable String group) {
    return Flux.defer(() -> {
      if (connections.unreachable()) {
        List<ServiceSummary> known = lastSeen.services(namespace, group);
        return known != null ? Flux.fromIterable(known)
            : Flux.error(unreachable("the services of " + namespace + (group == null ? "" : "/" + group)));
      }
      return servicePage(namespace, group, 1)
          .expand(page -> page.services().size() < LIST_PAGE_SIZE ? Mono.empty()
              : servicePage(namespace, group, page.page() + 1))
          .concatMapIterable(ListedPage::services)
          .collectList()
          .doOnNext(all -> lastSeen.services(namespace, group, all))
          .flatMapIterable(all -> all);
    });
  }

  /** What a read that cannot be answered from what was seen fails with while no server can be reached. */
  private RegistryUnavailableException unreachable(String what) {
    return new RegistryUnavailableException("no registry server reachable (servers: " + connections.servers()
        + "), and " + what + " was never read before", null);
  }

  private Mono<ListedPage> servicePage(String namespace, @Nullable String group, int page) {
    ServiceListQuery body = new ServiceListQuery(namespace, group, null, page, LIST_PAGE_SIZE);
    return connections.link(requestTimeout)
        .flatMap(link -> meters.timed(Route.SERVICE_LIST,
            link.socket().requestResponse(Wire.payload(Route.SERVICE_LIST.routeName(), body))))
        .map(answer -> new ListedPage(page, Wire.decode(answer, ServiceList.class).services()))
        .timeout(requestTimeout)
        .onErrorMap(Wire::translate);
  }

  private record ListedPage(int page, List<ServiceSummary> services) {}

  /**
   * Complete, folded views of a service, pushed as it changes. Callers watching the same view
   * share one server subscription and get the latest view at once; across reconnects the view is
   * kept (flagged stale) and then continues from a fresh snapshot.
   */
  public Flux<ServiceView> watch(ServiceName service) {
    return watch(service, List.of(), false);
  }

  public Flux<ServiceView> watch(ServiceName service, @Nullable List<String> clusters, boolean healthyOnly) {
    return Flux.defer(() -> watch(service, selection(clusters, healthyOnly)));
  }

  /**
   * As {@link #watch(ServiceName)}, of the part of the service {@code selection} asks for (some
   * clusters, healthy-only, a selector over metadata): the server sends only that part, and
   * callers of the same selection share one subscription.
   */
  public Flux<ServiceView> watch(ServiceName service, Selection selection) {
    return Flux.defer(() -> watches.watch(new Watches.Key(service, selection)));
  }

  /**
   * The services of a namespace (of one group and with a name prefix, when not null), as complete
   * views pushed as services appear, change (instance and healthy counts, protection) and go: what
   * a gateway or a discovery locator needs instead of polling {@link #services}. Across reconnects
   * the view is kept (flagged stale) and continues after the last revision it applied.
   */
  public Flux<CatalogView> catalog(String namespace, @Nullable String group, @Nullable String prefix) {
    return catalogs.watch(namespace, group, prefix);
  }

  /** The raw events of a view (SNAPSHOT, UPSERT, REMOVE, SERVICE_DELETED), resubscribed after reconnects. */
  public Flux<ServiceEvent> events(ServiceName service, @Nullable List<String> clusters, boolean healthyOnly) {
    return Flux.defer(() -> events(service, selection(clusters, healthyOnly)));
  }

  /** The raw events of the part of a service {@code selection} asks for. */
  public Flux<ServiceEvent> events(ServiceName service, Selection selection) {
    return Flux.defer(() -> watches.events(new Watches.Key(service, selection)));
  }

  /**
   * One instance to call: weighted random among healthy, enabled instances of weight above 0, from
   * the service's healthy-only view. When that view's protection is triggered (fewer healthy
   * instances than the service's {@code protectThreshold} asks for), protection wins: the choice
   * is among every enabled instance of weight above 0, healthy or not. While no server can be
   * reached, chosen at once from the last view seen. Fails with
   * {@link RegistryUnavailableException} when no view arrives within the request timeout, or at
   * once while no server can be reached and no view of the service was seen, and
   * {@link NoInstanceAvailableException} when the view has nothing to call.
   */
  public Mono<InstanceBody> choose(ServiceName service) {
    return choose(service, null);
  }

  /** As {@link #choose(ServiceName)}, preferring {@code cluster} when it has any such instance. */
  public Mono<InstanceBody> choose(ServiceName service, @Nullable String cluster) {
    return choose(service, cluster, null);
  }

  /**
   * As {@link #choose(ServiceName, String)}, among the instances {@code selector} selects (the
   * contract's "Selectors"; null: all), with protection computed on those alone.
   *
   * @throws IllegalArgumentException naming the position when {@code selector} is not one
   */
  public Mono<InstanceBody> choose(ServiceName service, @Nullable String cluster, @Nullable String selector) {
    Selection selection = Selection.healthy().matching(selector);
    return Mono.defer(() -> {
      Watches.Key key = new Watches.Key(service, selection);
      if (connections.unreachable() && watches.last(key) == null) {
        return Mono.error(unreachable("a view of " + service));
      }
      return watch(service, selection).next()
          .timeout(requestTimeout, Mono.error(() -> new RegistryUnavailableException("no view of " + service
              + " within " + requestTimeout + ": no registry server reachable, and none seen before", null)))
          .map(view -> chooser.choose(view, cluster));
    });
  }


  public boolean isConnected() {
    return connections.connected();
  }

  /**
   * True while no registry server can be reached: the connection was lost or attempts failed, and
   * none has succeeded since (not while the first attempt is under way). Reads then answer at once
   * from what the client saw last, or fail at once.
   */
  public boolean isUnreachable() {
    return connections.unreachable();
  }

  /** The instances this client keeps registered. */
  public List<Registration> registrations() {
    return new ArrayList<>(registrar.active());
  }

  /**
   * Deregisters the ephemeral instances and batches this client registered (unless built with
   * {@code deregisterOnClose(false)}) and closes the connection; watches end. Persistent instances
   * stay: they belong to no connection. Without a live connection it closes at once, deregistering
   * nothing (ephemeral instances went with the connection).
   */
  public Mono<Void> close() {
    // Only on a live connection: without one, the instances went with the last, and waiting for
    // another would only delay the application's shutdown.
    Mono<Void> deregister = deregisterOnClose && connections.connected()
        ? Flux.merge(Flux.fromIterable(registrar.active()).filter(Registration::ephemeral)
                .flatMap(r -> r.deregister().onErrorResume(e -> Mono.empty())),
            Flux.fromIterable(registrar.batches()).flatMap(b -> b.deregister().onErrorResume(e -> Mono.empty())))
            .then().timeout(requestTimeout, Mono.empty())
        : Mono.empty();
    return deregister.then(Mono.fromRunnable(() -> {
      registrar.dispose();
      connections.dispose();
    }));
  }

  /** {@link #close()}, waiting for it: for shutdown hooks and tests, never on an event-loop thread. */
  public void closeAndWait() {
    close().block(requestTimeout.multipliedBy(2));
  }

  /** The selection of the older signatures; a bad cluster name fails as the server would refuse it. */
  private static Selection selection(@Nullable List<String> clusters, boolean healthyOnly) {
    try {
      return new Selection(clusters, healthyOnly, "");
    } catch (RuleViolation violation) {
      throw new RegistryErrorException(ErrorCode.INVALID_PARAM, violation.getMessage());
    }
  }

  /** The rules the server applies, checked before sending: same rules, same words. */
  private static InstanceBody checked(@Nullable InstanceBody instance) {
    try {
      if (instance == null) {
        throw new RuleViolation("instance is required");
      }
      String ip = Addresses.normalize("instance.ip", instance.ip());
      InstanceRules.port("instance.port", instance.port());
      if (instance.cluster() != null) {
        Names.require("instance.cluster", instance.cluster());
      }
      InstanceRules.weight("instance.weight", instance.weight());
      InstanceRules.metadata("instance.metadata", instance.metadata());
      String cluster = instance.cluster() == null ? "DEFAULT" : instance.cluster();
      return new InstanceBody(null, ip, instance.port(), cluster, instance.weight(), instance.enabled(), null, null,
          instance.metadata());
    } catch (RuleViolation violation) {
      throw new RegistryErrorException(ErrorCode.INVALID_PARAM, violation.getMessage());
    }
  }

  /** Settings of a {@link RegistryClient}; {@link #build()} starts connecting in the background. */
  public static final class Builder {
    private final List<URI> servers = new ArrayList<>();
    private String clientName = "reactive-registry-client";
    private @Nullable String zone;
    private @Nullable String token;
    private @Nullable ClientTls tls;
    private Duration minBackoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(5);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Duration watchGracePeriod = Duration.ofSeconds(30);
    private Duration reconnectSettle = Duration.ofSeconds(3);
    private boolean deregisterOnClose = true;
    private java.nio.file.@Nullable Path cacheDirectory;
    private Duration cacheMaxAge = Duration.ofDays(1);
    private boolean pushEmptyProtection;
    private RandomGenerator random = new Random();
    private Object meterRegistry;
    private @Nullable Supplier<@Nullable String> ambientTrace;

    private Builder() {}

    /**
     * Server addresses, {@code tcp://host:port}, or {@code tls://host:port} (see {@link #tls}), or
     * the WebSocket endpoint, {@code ws://host:port/rsocket} or {@code wss://...} (over WebSocket
     * the other members of a cluster are not learned: list them all); the client uses one at a time and fails over to
     * the next. Every address listed must be a member of one registry cluster: independent servers
     * do not share what is registered on them, so clients that land on different ones would never
     * see each other. With a single server, list just that one. The other members of a cluster are
     * learned from the first one reached ({@code server.info}): one address is enough to fail over
     * to all of them, several let the client start when that one is down.
     */
    public Builder servers(String... addresses) {
      for (String address : addresses) {
        URI uri = URI.create(address);
        if (!ClientTransports.SCHEMES.contains(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 1) {
          throw new IllegalArgumentException("a server address looks like tcp://127.0.0.1:7070 (or tls://... for "
              + "a server with TLS, ws://127.0.0.1:7071/rsocket or wss://... for its WebSocket endpoint), not "
              + address);
        }
        servers.add(uri);
      }
      return this;
    }

    /** Labels the connection in the server's logs. */
    public Builder clientName(String value) {
      this.clientName = value;
      return this;
    }

    /**
     * This client's zone (a data centre, a rack; null: none). It connects to the cluster's members
     * of its zone first (members started with {@code --zone}), fails over to the others when none of
     * its zone is up, and is moved back by the cluster once one is; {@link #choose} prefers the
     * instances whose metadata {@code zone} is this zone while any of them serves traffic.
     *
     * @throws IllegalArgumentException when it is not a name (1-256 of letters, digits, {@code -_.:@})
     */
    public Builder zone(@Nullable String value) {
      this.zone = value == null || value.isBlank() ? null : Names.require("zone", value.strip());
      return this;
    }

    /**
     * The bearer token to present in each connection's SETUP, for a server that needs one: every
     * request then acts with its permissions. Never logged.
     */
    public Builder token(String value) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException("a token is a non-empty string");
      }
      this.token = value;
      return this;
    }

    /**
     * How to speak TLS to {@code tls://} servers: the CA that signed their certificates, and for
     * mutual TLS this client's certificate. Without it a {@code tls://} server must have a
     * certificate the JVM's default trust store accepts.
     */
    public Builder tls(ClientTls value) {
      this.tls = value;
      return this;
    }

    /** Reconnect delays: exponential from {@code min} up to {@code max}, with jitter. */
    public Builder reconnectBackoff(Duration min, Duration max) {
      this.minBackoff = min;
      this.maxBackoff = max;
      return this;
    }

    public Builder connectTimeout(Duration value) {
      this.connectTimeout = value;
      return this;
    }

    /** How long a request waits for a connection and an answer. */
    public Builder requestTimeout(Duration value) {
      this.requestTimeout = value;
      return this;
    }

    /** How long a watched view stays subscribed after its last subscriber leaves. */
    public Builder watchGracePeriod(Duration value) {
      this.watchGracePeriod = value;
      return this;
    }

    /**
     * After a reconnect, how long a watch keeps its last non-empty view rather than show an empty
     * one: long enough for the fleet to register again on a restarted server (default 3 s).
     */
    public Builder reconnectSettle(Duration value) {
      this.reconnectSettle = value;
      return this;
    }

    /**
     * Keeps each watched view in {@code directory} as it changes, so that a client starting while
     * no registry server can be reached watches, queries and chooses from the views it kept
     * (flagged stale), until a server answers. A view older than {@code maxAge}, or a damaged
     * file, is not used. Off by default.
     */
    public Builder viewCache(java.nio.file.Path directory, Duration maxAge) {
      this.cacheDirectory = directory;
      this.cacheMaxAge = maxAge;
      return this;
    }

    /**
     * Push-empty protection (Nacos's {@code namingPushEmptyProtection}): a watch keeps its last
     * non-empty view rather than show an empty one, unless the service was deleted. For callers
     * that would rather call instances that may be gone than have none to call. Off by default.
     */
    public Builder pushEmptyProtection(boolean value) {
      this.pushEmptyProtection = value;
      return this;
    }

    /** Whether {@link RegistryClient#close()} deregisters this client's ephemeral instances (default true). */
    public Builder deregisterOnClose(boolean value) {
      this.deregisterOnClose = value;
      return this;
    }

    /** The randomness of server order and {@code choose}; a seeded one makes tests repeatable. */
    public Builder random(RandomGenerator value) {
      this.random = value;
      return this;
    }

    /** Records the client's meters in this Micrometer {@code MeterRegistry}. */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry value) {
      this.meterRegistry = value;
      return this;
    }

    /**
     * Where the application's tracing keeps the current span: {@code current} answers the W3C
     * {@code traceparent} of the subscribing thread's span, or null outside any. Registrations,
     * batches and queries whose Reactor context names no trace ({@link #inTrace}) are sent in
     * that one, asked as they are subscribed to. The Spring Boot starter sets it from Micrometer
     * Tracing's current span when the application has a {@code Tracer}.
     */
    public Builder traceContext(Supplier<@Nullable String> current) {
      this.ambientTrace = current;
      return this;
    }

    public RegistryClient build() {
      if (servers.isEmpty()) {
        throw new IllegalStateException("at least one server address is needed: servers(\"tcp://127.0.0.1:7070\")");
      }
      return new RegistryClient(this);
    }
  }
}
