package io.reactiveregistry.server;

import com.google.common.base.Suppliers;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.audit.AuditHistory;
import io.reactiveregistry.server.audit.ChangeCounter;
import io.reactiveregistry.server.audit.HistoryFile;
import io.reactiveregistry.server.audit.TraceHub;
import io.reactiveregistry.server.cluster.CheckShare;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.cluster.ClusterStatus;
import io.reactiveregistry.server.cluster.ClusterView;
import io.reactiveregistry.server.cluster.Membership;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.Results.InstanceCounts;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.eureka.EurekaDoor;
import io.reactiveregistry.server.http.HttpEndpoint;
import io.reactiveregistry.server.lifecycle.HealthChecker;
import io.reactiveregistry.server.lifecycle.LifecycleTicker;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.push.Pacing;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.push.PushObserver;
import io.reactiveregistry.server.push.ResumeHistory;
import io.reactiveregistry.server.replication.MemberJoin;
import io.reactiveregistry.server.replication.PeerAccess;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.request.ServerIdentity;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.FailedAuthentications;
import io.reactiveregistry.server.security.JwtVerifier;
import io.reactiveregistry.server.security.ProtectedMode;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.security.StaticTokens;
import io.reactiveregistry.server.storage.RatisStore;
import io.reactiveregistry.server.storage.Storage;
import io.reactiveregistry.server.storage.StorageUnavailableException;
import io.reactiveregistry.server.tls.ReloadingSslContext;
import io.reactiveregistry.server.tls.TlsFiles;
import io.reactiveregistry.server.tracing.TracedCommits;
import io.reactiveregistry.server.tracing.Tracing;
import io.reactiveregistry.server.transport.RSocketEndpoint;
import io.rsocket.transport.netty.server.CloseableChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.util.retry.Retry;

/**
 * A running registry server: the core, its runtime, the lifecycle ticker, RSocket over TCP and
 * WebSocket, and HTTP for operations. Start with {@link #start(ServerConfig)}; stop with
 * {@link #dispose()} or, waiting, {@link #disposeNow(Duration)}.
 */
public final class RegistryServer implements Disposable {
  /** How long answers already being written get before connections are closed at shutdown. */
  private static final Duration IN_FLIGHT_GRACE = Duration.ofMillis(200);
  /** How long replaying storage may take at start before the server gives up. */
  /** How often the token file and TLS files are read for changes: a revoked token's connections close within it. */
  private static final Duration TOKEN_FILE_POLL = Duration.ofSeconds(1);
  /** How often a cluster member compares its client connections with its peers' (see ConnectionRebalancer). */
  private static final Duration REBALANCE_ROUND = Duration.ofSeconds(1);
  private static final Duration RESTORE_TIMEOUT = Duration.ofMinutes(5);
  private static final Logger log = LoggerFactory.getLogger(RegistryServer.class);

  private final RegistryRuntime runtime;
  private final RSocketEndpoint endpoint;
  private final CloseableChannel tcp;
  private final DisposableServer webSocket;
  private final DisposableServer http;
  private final Disposable ticker;
  private final PrometheusMeterRegistry meters;
  private final AtomicBoolean ready;
  private final AtomicBoolean stopped = new AtomicBoolean();
  /** The stop, once begun; guarded by {@code stopped}. */
  private Mono<Void> stopping;
  /** A Raft log on disk, or nothing with {@code --in-memory}; there either way. */
  private final Storage storage;
  /** Nacos's clients' door; null when it is off. */
  private final @Nullable NacosDoor nacos;
  /** Where the Nacos door's clients are sent when this member stops (none: each to the next of its list). */
  private final Supplier<List<NacosDoor.Destination>> nacosDestinations;
  private final MemberHandover handover;
  /** Set when the stop begins: peers then stop counting this member as somewhere to move clients to. */
  private final AtomicBoolean handingOver;
  /** The HTTP port's connections, counted: a stop with none open anywhere has nothing in flight. */
  private final ConnectionDoor httpDoor;

  private RegistryServer(RegistryRuntime runtime, RSocketEndpoint endpoint, CloseableChannel tcp,
      DisposableServer webSocket, DisposableServer http, Disposable ticker, PrometheusMeterRegistry meters,
      AtomicBoolean ready, Storage storage, @Nullable NacosDoor nacos,
      Supplier<List<NacosDoor.Destination>> nacosDestinations, MemberHandover handover, AtomicBoolean handingOver,
      ConnectionDoor httpDoor) {
    this.handingOver = handingOver;
    this.httpDoor = httpDoor;
    this.nacosDestinations = nacosDestinations;
    this.handover = handover;
    this.storage = storage;
    this.nacos = nacos;
    this.runtime = runtime;
    this.endpoint = endpoint;
    this.tcp = tcp;
    this.webSocket = webSocket;
    this.http = http;
    this.ticker = ticker;
    this.meters = meters;
    this.ready = ready;
  }

  /**
   * Builds the server and binds its ports; the Mono completes once it accepts connections. With a
   * data directory, storage is opened and everything durable restored first: the ports open, and
   * the server reports ready, only once the registry holds every acknowledged durable change.
   */
  public static Mono<RegistryServer> start(ServerConfig config) {
    return start(config, InstantSource.system());
  }

  /**
   * The same, timed by {@code clock} (heartbeat deadlines, the guessing limit's windows, token
   * expiry): a test moves time instead of waiting for it.
   */
  public static Mono<RegistryServer> start(ServerConfig config, InstantSource clock) {
    ClusterConfig cluster = config.storage().cluster();
    if (cluster.clustered()) {
      log.info("cluster member {} of {}: joining the group (a majority of members must be up)", cluster.nodeId(),
          cluster);
    }
    // Opening a log reads the disk: off the caller's thread, which may be an event loop.
    Mono<Storage> opened = config.storage().durable()
        ? Mono.<Storage>fromCallable(() -> RatisStore.open(config.storage(), config.security().tls()))
            .subscribeOn(Schedulers.boundedElastic())
        : Mono.fromSupplier(Storage::inMemory);
    return opened.flatMap(storage -> joined(config, storage).then(storage.restored(RESTORE_TIMEOUT))
        .flatMap(restored -> start(config, clock, storage, restored))
        .onErrorResume(error -> close(storage).then(Mono.error(error))));
  }

  /**
   * A member started with {@code --join} asks the running cluster to add it, before it waits to
   * hold the state (which the leader sends it as part of adding it); nothing otherwise.
   */
  private static Mono<Void> joined(ServerConfig config, Storage storage) {
    if (!(storage instanceof RatisStore ratis) || !ratis.joining()) {
      return Mono.empty();
    }
    return MemberJoin.ask(config.storage().join(), ratis.membership().current().self(), PeerAccess.of(config.security()),
            version(), RatisStore.MEMBERSHIP_TIMEOUT)
        .publishOn(Schedulers.boundedElastic()) // a Raft client reads files as it starts
        .doOnNext(ratis::joined)
        .then();
  }

  /**
   * Builds the server from its parts, in this order: the meters and the core; the runtime over
   * storage, following what storage commits; replication, the audit trail, security; the request
   * layer and the doors onto it; the revisions reserved (durable storage); then the ports, and once
   * they listen the timers (token and TLS files, expiry, the cluster's view, replication's links,
   * health checks). {@link #stopOnce} undoes it from the doors inwards.
   */
  private static Mono<RegistryServer> start(ServerConfig config, InstantSource clock, Storage storage,
      Storage.Restored restored) {
    return Mono.defer(() -> {
      ServerMeters serverMeters = ServerMeters.prometheus();
      PrometheusMeterRegistry meters = (PrometheusMeterRegistry) serverMeters.registry();
      ClusterConfig cluster = config.storage().cluster();
      String nodeId = cluster.clustered() ? cluster.nodeId() : UUID.randomUUID().toString();
      Registry registry = new Registry(clock, config.registryConfig(), config.lifecycle(), new java.util.Random(),
          nodeId);
      Tracing tracing = Tracing.of(config.tracing(), nodeId, version());
      PushObserver pushed = !tracing.on() ? serverMeters::pushed : (changedAt, trace) -> {
        serverMeters.pushed(changedAt, trace);
        if (trace != null) {
          tracing.pushed(trace, changedAt);
        }
      };
      RegistryRuntime runtime = new RegistryRuntime(registry, new PushHub(config.maxPendingEvents(), pushed,
          new ResumeHistory(config.resumeHistory(), clock, nodeId), Pacing.of(config.coalescing())), storage);
      // From here on, every entry another member commits is applied here too (a traced one in its trace).
      storage.follow(new TracedCommits(runtime.follower(), tracing), runtime::restore);
      if (config.storage().durable()) {
        log.info("restored {} durable values from {} in {} ms (revision {})", restored.values().size(),
            config.storage().dataDir().toAbsolutePath(), restored.took().toMillis(), restored.revision());
      }
      serverMeters.gauge("registry.storage.pending", "commands whose durable changes are not yet committed",
          storage::notDurable);
      storage.onDurable(serverMeters.storageCommitLatency());
      serverMeters.gauge("registry.storage.failed", "1 once durable storage has failed (until a restart)",
          () -> storage.failureDescription() == null ? 0 : 1);
      // A cluster to view only where there is a log: an --in-memory server belongs to none.
      ClusterView clusterView = storage instanceof RatisStore log ? new ClusterView(cluster, nodeId, log::status, meters)
          : null;
      // Each node streams what its connections own to its peers, and follows theirs.
      // Who the members are: as the group commits them (a cluster's log), else fixed.
      Membership membership = storage instanceof RatisStore log ? log.membership() : Membership.of(cluster);
      Replication replication = new Replication(nodeId, membership, runtime, config.replication(), serverMeters, clock,
          version(), Schedulers.parallel(), PeerAccess.of(config.security()), tracing, storage::peerConnected);
      if (cluster.clustered() && config.security().credentials() && config.security().peerTokenFile() == null) {
        log.warn("every request here needs a token, and so do the peers' (they share the settings): give "
            + "--peer-token-file (a token with admin on every namespace), or ephemeral instances are not replicated "
            + "between the members");
      }
      Supplier<ClusterStatus> clusterStatus = clusterView == null ? null
          : () -> clusterView.status().withReplication(replication.status()).withZones(replication.zones());
      ServerIdentity identity = new ServerIdentity(version(), nodeId, clock.millis(), clusterStatus);
      HistoryFile historyFile = historyFile(config.history());
      TraceHub trace = new TraceHub(clock, nodeId, config.maxPendingEvents(), Schedulers.parallel(),
          new AuditHistory(config.history(), clock, historyFile));
      runtime.addListener(trace);
      runtime.addListener(new ChangeCounter(meters));
      // What failed beyond repair without a restart; null while nothing has.
      Supplier<String> storageFailure = storage::failureDescription;
      ProtectedMode protectedMode = new ProtectedMode(config.security());
      Access access = access(config.security(), serverMeters, clock);
      ReloadingSslContext tls = tls(config.security().tls());
      if (access.tokens() != null) {
        log.info("tokens: {} read from {}; every request needs one (watched for changes)",
            access.tokens().size(), access.tokens().file().toAbsolutePath());
      }
      if (access.jwt() != null) {
        log.info("signed tokens (JWT): {} verification key(s) read from {}; every request needs a token",
            access.jwt().keys(), config.security().jwtKeysFile().toAbsolutePath());
      }
      if (!access.required() && protectedMode.on()) {
        log.info("protected mode: only loopback connections are served (no credentials are configured; "
            + "--allow-unauthenticated serves other hosts)");
      } else if (!access.required()) {
        log.warn("--allow-unauthenticated: connections from any address are served without credentials; whoever "
            + "reaches the ports can register, deregister and administer everything");
      }
      if (tracing.on()) {
        log.info("tracing: spans exported to {} (requests without a trace context sampled at {})",
            config.tracing().endpoint(), config.tracing().sampleRatio());
      }
      RequestLayer layer = new RequestLayer(runtime, trace, identity, clock, serverMeters, storage::state, access,
          replication, tracing);
      RSocketEndpoint endpoint = new RSocketEndpoint(layer, config.limits(), clock, serverMeters, protectedMode,
          access, tls);
      registerGauges(serverMeters, runtime, endpoint);
      // Peers learn from each digest how many clients this member holds; a stopping one says so.
      AtomicBoolean stopping = new AtomicBoolean();
      replication.countConnections(() -> stopping.get() ? -1 : endpoint.movableConnections());
      serverMeters.gauge("registry.trace.subscribers", "open admin.trace streams", trace::subscriberCount);
      serverMeters.gauge("registry.history.events", "changes kept in the audit history", trace.history()::size);
      serverMeters.gauge("registry.history.file.dropped", "changes the audit history file dropped (the disk fell "
          + "behind)", trace.history()::fileDropped);
      serverMeters.gauge("registry.catalog.subscribers", "open catalog.subscribe streams", layer::catalogSubscribers);
      AtomicBoolean ready = new AtomicBoolean();
      ConnectionDoor httpDoor = new ConnectionDoor("http", config.limits().httpConnections(),
          serverMeters.connectionsRefused("http", "port"), serverMeters.connectionsRefused("http", "address"));
      HttpEndpoint httpEndpoint = new HttpEndpoint(layer, meters,
          () -> ready.get() && storageFailure.get() == null,
          Duration.ofMillis(config.limits().httpIdleTimeoutMs()), storageFailure, httpDoor, protectedMode,
          serverMeters.connectionsRefused("http", "protected-mode"), access, tls,
          () -> clusterStatus == null ? null : clusterStatus.get(), new EurekaDoor(layer, config.eureka(), meters,
              Schedulers.parallel()));
      // Before the ports open: revisions handed out from now on are above any a client saw before.
      // (Its commit completes on storage's thread; binding happens on a thread that may block.)
      // A member starting while the others are busy (an election, a snapshot) may see this first
      // write time out: it retries for as long as a start may take rather than exit.
      Mono<Void> revisionsReserved = !config.storage().durable() ? Mono.empty()
          : Mono.defer(() -> Mono.fromFuture(runtime.reserveRevisions()))
              .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(200)).maxBackoff(Duration.ofSeconds(2))
                  .filter(RegistryServer::worthRetryingAtStart)
                  .doBeforeRetry(retry -> log.warn("reserving revisions at start: {}; retrying",
                      retry.failure().getMessage())))
              .timeout(RESTORE_TIMEOUT)
              .publishOn(Schedulers.boundedElastic());
      // The Nacos door binds with gRPC's own (blocking) call, so on a thread that may block.
      Mono<Optional<NacosDoor>> nacosDoor = Mono.fromCallable(() -> Optional.ofNullable(NacosDoor.open(config.nacos(),
              config.host(), layer, access, protectedMode, config.security().tls(), tls,
              config.limits().maxPayloadBytes(), config.limits().rsocketConnections(),
              Duration.ofMillis(config.limits().httpIdleTimeoutMs()), clock,
              meters)))
          .subscribeOn(Schedulers.boundedElastic());
      return revisionsReserved.then(Mono.zip(endpoint.bindTcp(config.host(), config.tcpPort()),
              endpoint.bindWebSocket(config.host(), config.webSocketPort()),
              httpEndpoint.bind(config.host(), config.httpPort()), nacosDoor)
          .map(ports -> {
            ServerConfig.HealthChecks checks = config.healthChecks();
            Disposable ticker = Disposables.composite(
                historyFile != null ? historyFile : Disposables.disposed(),
                tracing,
                tls != null ? tls.watch(TOKEN_FILE_POLL, Schedulers.boundedElastic()) : Disposables.disposed(),
                access.tokens() != null ? access.tokens().watch(TOKEN_FILE_POLL, Schedulers.boundedElastic())
                    : Disposables.disposed(),
                new LifecycleTicker(runtime, storage::leading).start(config.expiryTick(), Schedulers.parallel(),
                    clock.equals(InstantSource.system())), // a virtual clock does not stall with the threads
                clusterView == null ? Disposables.disposed() : clusterView.start(Schedulers.boundedElastic()),
                replication,
                !cluster.clustered() ? Disposables.disposed() : new ConnectionRebalancer(nodeId, endpoint,
                    movableNacos(ports.getT4().orElse(null), replication, stopping), replication,
                    config.replication().rebalancePerRound(), config.replication().rebalanceTolerance(),
                    config.replication().zone())
                    .start(REBALANCE_ROUND, Schedulers.parallel()),
                new HealthChecker(runtime, checks.interval(), checks.timeout(), checks.concurrency(), checks.caFile(),
                    nodeId)
                    .onlyFor(checkShare(cluster, nodeId, membership, replication))
                    .start(Schedulers.parallel()));
            ready.set(true);
            return new RegistryServer(runtime, endpoint, ports.getT1(), ports.getT2(), ports.getT3(), ticker, meters,
                ready, storage, ports.getT4().orElse(null),
                cluster.clustered() ? nacosDestinations(ports.getT4().orElse(null), replication,
                    config.replication().zone()) : List::of,
                new MemberHandover(membership, storage, endpoint, replication, config.replication().moveTimeout()),
                stopping, httpDoor);
          }));
    });
  }

  /**
   * The Nacos door whose clients rebalancing moves, its clients counted in the digests that peers
   * compare; null when there is none, or none a Nacos client could be sent to (its gRPC port is not
   * its HTTP port + 1000).
   */
  private static @Nullable NacosDoor movableNacos(@Nullable NacosDoor door, Replication replication,
      AtomicBoolean stopping) {
    if (door == null || door.movePort() < 0) {
      return null;
    }
    replication.countNacosConnections(() -> stopping.get() ? 0 : door.movableConnections(), door.movePort());
    return door;
  }

  /**
   * The members a stopping one sends its Nacos clients to: the peers up and not stopping whose
   * Nacos door a Nacos client can be sent to (its own host, gRPC at its HTTP port + 1000), those of
   * this member's zone when there are any; read when the stop comes.
   */
  private static Supplier<List<NacosDoor.Destination>> nacosDestinations(@Nullable NacosDoor door,
      Replication replication, @Nullable String zone) {
    if (door == null || door.movePort() < 0) {
      return List::of;
    }
    return () -> {
      List<Replication.PeerLoad> doors = ConnectionRebalancer.nacosDoors(ConnectionRebalancer.up(replication));
      List<Replication.PeerLoad> sameZone = doors.stream().filter(peer -> Objects.equals(peer.zone(), zone)).toList();
      return (sameZone.isEmpty() ? doors : sameZone).stream()
          .map(peer -> new NacosDoor.Destination(Objects.requireNonNull(peer.nacosHost()), peer.nacosPort(),
              peer.nacosConnections()))
          .toList();
    };
  }

  /** The audit history's JSON-lines file, opened (in the caller's thread: start may block); null without one. */
  private static @Nullable HistoryFile historyFile(AuditHistory.Settings settings) {
    if (settings.file() == null) {
      return null;
    }
    try {
      HistoryFile file = new HistoryFile(settings.file(), settings.fileMaxBytes(), settings.fileKeep());
      log.info("audit history appended to {} (rotated past {} bytes, {} rotated files kept)",
          settings.file().toAbsolutePath(), settings.fileMaxBytes(), settings.fileKeep());
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("the audit history file " + settings.file() + " cannot be opened: "
          + e.getMessage(), e);
    }
  }

  /** A write refused for want of a quorum or for being busy may succeed later; a failed store will not. */
  private static boolean worthRetryingAtStart(Throwable error) {
    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
        ? error.getCause() : error;
    return cause instanceof StorageUnavailableException unavailable
        && unavailable.reason() != StorageUnavailableException.Reason.FAILED;
  }

  public InetSocketAddress tcpAddress() {
    return tcp.address();
  }

  public int tcpPort() {
    return tcp.address().getPort();
  }

  public int webSocketPort() {
    return webSocket.port();
  }

  public int httpPort() {
    return http.port();
  }

  /** The Nacos door's HTTP port; -1 when the door is off. */
  public int nacosHttpPort() {
    return nacos == null ? -1 : nacos.httpPort();
  }

  /** The Nacos door's gRPC port; -1 when the door is off. */
  public int nacosGrpcPort() {
    return nacos == null ? -1 : nacos.grpcPort();
  }

  /** The runtime, for embedding and tests that look at state directly. */
  public RegistryRuntime runtime() {
    return runtime;
  }

  /** The Nacos door; null when it is off. */
  public @Nullable NacosDoor nacos() {
    return nacos;
  }

  /** Durable storage, when the server keeps durable state on disk; for embedding and tests. */
  public Optional<RatisStore> storage() {
    return storage instanceof RatisStore log ? Optional.of(log) : Optional.empty();
  }

  /** The server's meters, in Prometheus text format by {@link PrometheusMeterRegistry#scrape()}. */
  public PrometheusMeterRegistry meters() {
    return meters;
  }

  public int openConnections() {
    return endpoint.openConnections();
  }

  /** Heartbeats that could not be applied: invalid ones, and those for another connection's instance. */
  public long droppedHeartbeats() {
    return (long) meters.get("registry.heartbeats.dropped").counter().count();
  }

  /** Stops gracefully in the background; see {@link #stop()}. */
  @Override
  public void dispose() {
    stop().subscribe();
  }

  @Override
  public boolean isDisposed() {
    return stopped.get();
  }

  /** Completes when the RSocket TCP port has closed. */
  public Mono<Void> onClose() {
    return tcp.onClose();
  }

  /** Stops gracefully and waits, at most {@code timeout}, for every port and connection to close. */
  public void disposeNow(Duration timeout) {
    stop().block(timeout);
  }

  /**
   * A graceful stop: readiness turns false and new connections are refused; a cluster member hands
   * over its leadership and its clients ({@link MemberHandover}); subscription streams
   * end normally and get {@code IN_FLIGHT_GRACE} for their last frames and answers being written
   * to go out (when any connection is open); then the ports close and every connection is closed
   * with the reason, each as soon as that frame is out (releasing what each owned: on a cluster
   * member, here only, the peers keeping it for the replication grace); HTTP closes last. The
   * ports close only after the streams have ended because closing an RSocket server port also
   * closes its connections.
   */
  private Mono<Void> stop() {
    return Mono.defer(() -> {
      synchronized (stopped) {
        if (stopping == null) {
          stopped.set(true);
          // Cached: whoever asks again, or waits with disposeNow, waits for the same whole stop,
          // storage included.
          stopping = stopOnce().cache();
        }
        return stopping;
      }
    });
  }

  private Mono<Void> stopOnce() {
    return Mono.defer(() -> {
      ready.set(false);
      handingOver.set(true);
      endpoint.stopAccepting();
      // A cluster member first hands over its leadership and its clients, with replication still
      // running (it carries the clients' registrations elsewhere back here, so that closing their
      // connections releases nothing).
      return handover.run().then(Mono.defer(this::closeEverything));
    });
  }

  /**
   * {@code IN_FLIGHT_GRACE}, unless no connection is open on any port: then no stream can have
   * last frames to send nor a request an answer to write, and the stop need not wait (a test's
   * server, an idle one).
   */
  private Mono<Void> inFlightGrace() {
    boolean open = endpoint.hasConnections() || httpDoor.openConnections() > 0
        || (nacos != null && nacos.openConnections() > 0);
    return open ? Mono.delay(IN_FLIGHT_GRACE).then() : Mono.empty();
  }

  private Mono<Void> closeEverything() {
    return Mono.defer(() -> {
      // Read while replication still runs (the ticker's disposal ends it, and the peers' loads with it).
      List<NacosDoor.Destination> nacosTo = nacosDestinations.get();
      ticker.dispose();
      runtime.completeSubscriptions();
      // Nacos's clients are told to move at once (their client then connects elsewhere and redoes
      // what it had); the rest closes as the other ports do.
      Mono<Void> nacosStopped = nacos == null ? Mono.empty()
          : Mono.<Void>fromRunnable(() -> nacos.stop(IN_FLIGHT_GRACE, nacosTo))
              .subscribeOn(Schedulers.boundedElastic());
      return inFlightGrace()
          .then(nacosStopped)
          .then(endpoint.closeConnectionsGracefully("the server is shutting down", IN_FLIGHT_GRACE))
          .then(Mono.fromRunnable(() -> {
            tcp.dispose();
            webSocket.dispose();
          }))
          .then(Mono.when(tcp.onClose().onErrorResume(e -> Mono.empty()), webSocket.onDispose()))
          .then(Mono.fromRunnable(http::dispose))
          .then(http.onDispose())
          .then(close(storage));
    });
  }

  /** Closes storage off the event loops: it writes what is queued and stops Ratis (file I/O). */
  private static Mono<Void> close(Storage storage) {
    return Mono.<Void>fromRunnable(() -> {
          try {
            long start = System.nanoTime();
            storage.close();
            log.info("storage closed in {} ms", (System.nanoTime() - start) / 1_000_000);
          } catch (IOException | RuntimeException e) {
            log.warn("storage did not close cleanly", e);
          }
        })
        .subscribeOn(Schedulers.boundedElastic());
  }

  /** Requests need a token when a token file is configured; a file that breaks a rule stops the start. */
  private static Access access(SecurityConfig security, ServerMeters meters, InstantSource clock) {
    if (!security.credentials()) {
      return Access.OPEN;
    }
    Path file = security.tokenFile();
    try {
      StaticTokens tokens = file == null ? null : StaticTokens.read(file);
      file = security.jwtKeysFile();
      JwtVerifier jwt = file == null ? null : JwtVerifier.read(file, clock);
      return new Access(tokens, jwt, new FailedAuthentications(security.maxFailedAuthentications(),
          security.failedAuthenticationWindow(), clock), meters.authenticationsFailed()::increment);
    } catch (IOException e) {
      throw new UncheckedIOException(file + " cannot be read: " + e.getMessage(), e);
    }
  }

  /** TLS on every port when its files are configured; files that cannot be used stop the start. */
  private static ReloadingSslContext tls(TlsFiles files) {
    if (files == null) {
      return null;
    }
    try {
      ReloadingSslContext context = ReloadingSslContext.read(files);
      log.info("TLS on every port: certificate {}{} (watched for changes)", files.certificate().toAbsolutePath(),
          files.clientCa() == null ? "" : ", clients must present a certificate signed by "
              + files.clientCa().toAbsolutePath());
      return context;
    } catch (IOException e) {
      throw new UncheckedIOException("TLS files cannot be read: " + e.getMessage(), e);
    }
  }

  private static void registerGauges(ServerMeters meters, RegistryRuntime runtime, RSocketEndpoint endpoint) {
    meters.gauge("registry.connections", "open client connections", endpoint::openConnections);
    meters.gauge("registry.subscribers", "open service.subscribe streams", runtime::subscriberCount);
    meters.gauge("registry.resume.history.events", "changes kept for subscribers that resume (sinceRevision)",
        runtime::resumeHistorySize);
    meters.counter("registry.subscriptions.resumed", "subscriptions that asked to resume (sinceRevision) and did",
        runtime, r -> r.resumes(true), "outcome", "resumed");
    meters.counter("registry.subscriptions.resumed", "subscriptions that asked to resume but got a snapshot",
        runtime, r -> r.resumes(false), "outcome", "snapshot");
    meters.gauge("registry.self.preservation", "1 while missed heartbeats do not expire instances",
        () -> runtime.read(RegistryReads::selfPreserving) ? 1 : 0);
    meters.gauge("registry.services", "services", () -> runtime.read(RegistryReads::serviceCount));
    meters.gauge("registry.namespaces", "namespaces holding at least one service",
        () -> runtime.read(RegistryReads::namespaceCount));
    meters.gauge("registry.durable.metadata.bytes", "UTF-8 bytes of metadata kept durably",
        () -> runtime.read(RegistryReads::durableMetadataBytes));
    // Counting looks at every instance under the monitor: once per scrape, shared by the four gauges
    // (a scrape reads them within microseconds; the figures are at most 100 ms old).
    Supplier<InstanceCounts> counts =
        Suppliers.memoizeWithExpiration(() -> runtime.read(RegistryReads::instanceCounts), 100, TimeUnit.MILLISECONDS);
    instanceGauge(meters, counts, "ephemeral", "healthy", InstanceCounts::ephemeralHealthy);
    instanceGauge(meters, counts, "ephemeral", "unhealthy", InstanceCounts::ephemeralUnhealthy);
    instanceGauge(meters, counts, "persistent", "healthy", InstanceCounts::persistentHealthy);
    instanceGauge(meters, counts, "persistent", "unhealthy", InstanceCounts::persistentUnhealthy);
  }

  private static void instanceGauge(ServerMeters meters, Supplier<InstanceCounts> counts, String type, String health,
      ToIntFunction<InstanceCounts> count) {
    meters.gauge("registry.instances", "instances by type and health", () -> count.applyAsInt(counts.get()),
        "type", type, "health", health);
  }


  /**
   * Which services this server health-checks: every one on a single server; in a cluster, its
   * share among the members it hears from, itself included while it is a member ({@link CheckShare}).
   */
  private static Predicate<ServiceKey> checkShare(ClusterConfig cluster, String nodeId, Membership membership,
      Replication replication) {
    if (!cluster.clustered()) {
      return service -> true;
    }
    return new CheckShare(nodeId, () -> {
      List<String> peers = replication.connectedPeers();
      return membership.current().members().stream().map(ClusterConfig.Member::id)
          .filter(id -> id.equals(nodeId) || peers.contains(id)).toList();
    });
  }

  static String version() {
    try (InputStream in = RegistryServer.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "dev";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "dev");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
