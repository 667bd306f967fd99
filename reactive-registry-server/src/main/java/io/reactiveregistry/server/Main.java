package io.reactiveregistry.server;

import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.audit.AuditHistory;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.core.Quotas;
import io.reactiveregistry.server.eureka.EurekaDoor;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.process.FatalErrors;
import io.reactiveregistry.server.process.NettyDefaults;
import io.reactiveregistry.server.push.Pacing;
import io.reactiveregistry.server.push.ResumeHistory;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.storage.RaftNetty;
import io.reactiveregistry.server.storage.StorageConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import io.reactiveregistry.server.tracing.Tracing;
import io.reactiveregistry.server.transport.ServerLimits;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar reactive-registry-server.jar}: starts a server with embedded defaults. */
@Command(name = "reactive-registry-server", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "A non-blocking service registry over RSocket. Every option can also be set by the environment "
        + "variable REGISTRY_<OPTION> (--max-payload-bytes: REGISTRY_MAX_PAYLOAD_BYTES) or in the properties file "
        + "given by --config-file (max-payload-bytes=...); a flag wins over the environment, which wins over the file.",
    sortOptions = false)
public final class Main implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(Main.class);

  @Option(names = "--host",
      description = "Address to bind. Default: ${DEFAULT-VALUE}")
  String host;

  @Option(names = "--config-file", description = "Optional properties file of settings (also REGISTRY_CONFIG_FILE)")
  String configFile;

  @Option(names = "--port",
      description = "RSocket TCP port; 0 picks a free one. Default: ${DEFAULT-VALUE}")
  int port;

  @Option(names = "--ws-port",
      description = "RSocket over WebSocket port, path /rsocket; 0 picks a free one. Default: ${DEFAULT-VALUE}")
  int webSocketPort;

  @Option(names = "--http-port",
      description = "HTTP port: /health, /ready, /metrics, /api/v1; 0 picks a free one. Default: ${DEFAULT-VALUE}")
  int httpPort;

  @Option(names = "--max-payload-bytes",
      description = "Largest request body. Default: ${DEFAULT-VALUE}")
  int maxPayloadBytes;

  @Option(names = "--max-instances-per-connection",
      description = "Ephemeral instances one connection may own. "
          + "Default: ${DEFAULT-VALUE}")
  int maxInstancesPerConnection;

  @Option(names = "--max-subscriptions-per-connection",
      description = "Open subscriptions per connection. "
          + "Default: ${DEFAULT-VALUE}")
  int maxSubscriptionsPerConnection;

  @Option(names = "--max-outbound-backlog-bytes",
      description = "Bytes that may wait to be sent to a peer that is not reading before its connection is closed "
          + "Default: ${DEFAULT-VALUE}")
  int maxOutboundBacklogBytes;

  @Option(names = "--min-keepalive-interval-ms",
      description = "Shortest keepalive interval a client may ask for in its SETUP; a shorter one is refused. "
          + "Default: ${DEFAULT-VALUE}")
  int minKeepAliveIntervalMs;

  @Option(names = "--http-idle-timeout-ms",
      description = "An HTTP or WebSocket connection that has not completed a request this long (idle, or "
          + "dribbling its headers) is closed. Default: ${DEFAULT-VALUE}")
  int httpIdleTimeoutMs;

  @Option(names = "--max-setup-bytes",
      description = "Largest SETUP frame a TCP connection may announce before it is set up. Default: ${DEFAULT-VALUE}")
  int maxSetupBytes;

  @Option(names = "--setup-timeout-ms",
      description = "A TCP connection must send its whole SETUP within this. Default: ${DEFAULT-VALUE}")
  int setupTimeoutMs;

  @Option(names = "--max-connections-per-port",
      description = "Connections the RSocket TCP port, and the WebSocket port, each hold; more are closed as soon as "
          + "accepted. Default: ${DEFAULT-VALUE}")
  int maxConnectionsPerPort;

  @Option(names = "--max-connections-per-address",
      description = "Connections one remote address may hold on the RSocket TCP port, and on the WebSocket port. "
          + "Default: ${DEFAULT-VALUE}")
  int maxConnectionsPerAddress;

  @Option(names = "--max-http-connections",
      description = "Connections the HTTP port holds. Default: ${DEFAULT-VALUE}")
  int maxHttpConnections;

  @Option(names = "--max-http-connections-per-address",
      description = "Connections one remote address may hold on the HTTP port. Default: ${DEFAULT-VALUE}")
  int maxHttpConnectionsPerAddress;

  @Option(names = "--max-fragment-bytes-per-connection",
      description = "Bytes of unfinished fragmented requests one connection may hold (at least one frame, twice "
          + "the body limit); past it the request is refused. Default: ${DEFAULT-VALUE}")
  long maxFragmentBytesPerConnection;

  @Option(names = "--max-fragment-bytes",
      description = "Bytes of unfinished fragmented requests all connections together may hold. "
          + "Default: ${DEFAULT-VALUE}")
  long maxFragmentBytes;

  @Option(names = "--max-namespaces",
      description = "Namespaces holding at least one service. Default: ${DEFAULT-VALUE}")
  int maxNamespaces;

  @Option(names = "--max-services",
      description = "Services of either type, created by an operator or by a registration. Default: ${DEFAULT-VALUE}")
  int maxServices;

  @Option(names = "--max-services-per-namespace",
      description = "Services in one namespace. Default: ${DEFAULT-VALUE}")
  int maxServicesPerNamespace;

  @Option(names = "--max-persistent-instances",
      description = "Persistent instances (kept durably). Default: ${DEFAULT-VALUE}")
  int maxPersistentInstances;

  @Option(names = "--max-persistent-instances-per-namespace",
      description = "Persistent instances in one namespace. Default: ${DEFAULT-VALUE}")
  int maxPersistentInstancesPerNamespace;

  @Option(names = "--max-http-instances",
      description = "Ephemeral instances registered over HTTP, which belong to no connection and live by their "
          + "heartbeats. Default: ${DEFAULT-VALUE}")
  int maxHttpInstances;

  @Option(names = "--eureka-namespace",
      description = "The namespace whose services the Eureka door (/eureka/) shows as applications and registers "
          + "Eureka clients in. Default: ${DEFAULT-VALUE}")
  String eurekaNamespace;

  @Option(names = "--eureka-group",
      description = "The group of that namespace the Eureka door serves. Default: ${DEFAULT-VALUE}")
  String eurekaGroup;

  @Option(names = "--nacos-port",
      description = "The Nacos door's HTTP port: Nacos's Open API (/nacos/v1/ns/..., /nacos/v2/ns/...) and its "
          + "clients' login. Nacos clients are given this port in their server address; -1 turns the door off. "
          + "Default: ${DEFAULT-VALUE}")
  int nacosPort;

  @Option(names = "--nacos-grpc-port",
      description = "The Nacos door's gRPC port, for Nacos 2.x clients; they expect it at --nacos-port + 1000 "
          + "(Nacos's clients can be told another offset with -Dnacos.server.grpc.port.offset). "
          + "Default: ${DEFAULT-VALUE}")
  int nacosGrpcPort;

  @Option(names = "--max-durable-metadata-bytes",
      description = "UTF-8 bytes of metadata kept durably (persistent instances', service definitions'). "
          + "Default: ${DEFAULT-VALUE}")
  long maxDurableMetadataBytes;

  @Option(names = "--max-durable-metadata-bytes-per-namespace",
      description = "The same, in one namespace. Default: ${DEFAULT-VALUE}")
  long maxDurableMetadataBytesPerNamespace;

  @Option(names = "--max-pending-events",
      description = "Events a slow subscriber may have pending before they collapse into one snapshot "
          + "Default: ${DEFAULT-VALUE}")
  int maxPendingEvents;

  @Option(names = "--heartbeat-interval-ms",
      description = "Default heartbeat interval. Default: ${DEFAULT-VALUE}")
  long heartbeatIntervalMs;

  @Option(names = "--heartbeat-timeout-ms",
      description = "Unhealthy after this long without a heartbeat. "
          + "Default: ${DEFAULT-VALUE}")
  long heartbeatTimeoutMs;

  @Option(names = "--delete-timeout-ms",
      description = "Removed after this long without a heartbeat. Default: ${DEFAULT-VALUE}")
  long deleteTimeoutMs;

  @Option(names = "--expiry-tick-ms",
      description = "How often heartbeat deadlines are applied. Default: ${DEFAULT-VALUE}")
  long expiryTickMs;

  @Option(names = "--resume-history-events",
      description = "Changes kept per subscribed service for subscribers that resume (sinceRevision). "
          + "Default: ${DEFAULT-VALUE}")
  int resumeHistoryEvents;

  @Option(names = "--resume-history-ms",
      description = "How long those changes are kept, and a service's history after its last subscriber left. "
          + "Default: ${DEFAULT-VALUE}")
  long resumeHistoryMs;

  @Option(names = "--resume-history-total",
      description = "Changes kept for all services together: the history's memory bound. Default: ${DEFAULT-VALUE}")
  int resumeHistoryTotal;

  @Option(names = "--history-events",
      description = "Changes kept for the audit history (admin.trace.query, GET /api/v1/trace/history), about "
          + "120 bytes each; 0 keeps none. Default: ${DEFAULT-VALUE}")
  int historyEvents;

  @Option(names = "--history-ms",
      description = "How long a change stays in the audit history. Default: ${DEFAULT-VALUE}")
  long historyMs;

  @Option(names = "--history-file",
      description = "Also append every change to this JSON-lines file, for a log shipper. Default: none")
  Path historyFile;

  @Option(names = "--history-file-max-bytes",
      description = "Rotate the history file past this size (file.1, file.2, ...). Default: ${DEFAULT-VALUE}")
  long historyFileMaxBytes;

  @Option(names = "--otlp-endpoint",
      description = "Export spans of the server's work on requests to this OTLP/HTTP traces endpoint "
          + "(e.g. http://127.0.0.1:4318/v1/traces). Default: none (tracing off, nothing made)")
  URI otlpEndpoint;

  @Option(names = "--trace-sample-ratio",
      description = "With --otlp-endpoint: the share of requests without a caller's trace context (traceparent) "
          + "that start a trace; a caller's own sampling decision is always kept. Default: ${DEFAULT-VALUE}")
  double traceSampleRatio;

  @Option(names = "--history-file-keep",
      description = "Rotated history files kept; the oldest beyond are deleted. Default: ${DEFAULT-VALUE}")
  int historyFileKeep;

  @Option(names = "--coalesce-window-ms",
      description = "The least time between two frames to a subscriber that asked to coalesce (\"coalesce\": true): "
          + "changes that follow one another within it go together as one BATCH; 0 sends each drain at once. "
          + "Default: ${DEFAULT-VALUE}")
  long coalesceWindowMs;

  @Option(names = "--coalesce-frames-per-second",
      description = "The most frames all subscribers that asked to coalesce are sent together a second: with more "
          + "of them than this allows at the window, each one's window widens (5,000 at the default: 250 ms), so that "
          + "a storm's batches do not take the cores its registrations need; 0: the window alone. "
          + "Default: ${DEFAULT-VALUE}")
  int coalesceFramesPerSecond;

  @Option(names = "--replication-grace-ms",
      description = "In a cluster, how long a lost peer's ephemeral instances are kept before those no other node "
          + "took over are removed. Default: ${DEFAULT-VALUE}")
  long replicationGraceMs;

  @Option(names = "--move-timeout-ms",
      description = "In a cluster, how long a stopping member waits for its clients to move to the other members "
          + "(each registers again there, then leaves) before it closes the connections left. Default: "
          + "${DEFAULT-VALUE}")
  long moveTimeoutMs;

  @Option(names = "--rebalance-per-round",
      description = "In a cluster, at most how many client connections a member holding more than its share asks "
          + "to move to the others per round (a round follows each of the peers' reports, every anti-entropy "
          + "interval); 0 never rebalances. Default: ${DEFAULT-VALUE}")
  int rebalancePerRound;

  @Option(names = "--zone",
      description = "In a cluster, this member's zone (a data centre, a rack): clients given the same zone connect "
          + "to the members of their zone while one is up, and are moved back to it once one is. Default: none")
  String zone;

  @Option(names = "--rebalance-tolerance",
      description = "In a cluster, how far above its share of the client connections (a fraction of the share) a "
          + "member may be before it asks some to move. Default: ${DEFAULT-VALUE}")
  double rebalanceTolerance;

  @Option(names = "--anti-entropy-interval-ms",
      description = "In a cluster, how often each node sends its peers a digest of its ephemeral instances to "
          + "compare. Default: ${DEFAULT-VALUE}")
  long antiEntropyIntervalMs;

  @Option(names = "--peer-token-file",
      description = "In a cluster whose members need tokens: a file holding the bearer token this node presents "
          + "to its peers (a principal with admin on every namespace).")
  Path peerTokenFile;

  @Option(names = "--expiry-budget",
      description = "Instances one expiry pass may look at; a mass expiry is spread over several passes. "
          + "Default: ${DEFAULT-VALUE}")
  int expiryBudget;

  @Option(names = "--empty-service-cleanup-ms",
      description = "A service created by a registration is removed after being empty this long "
          + "Default: ${DEFAULT-VALUE}")
  long emptyServiceCleanupMs;

  @Option(names = "--override-retention-ms",
      description = "An operator override is dropped once its instance has been gone this long "
          + "Default: ${DEFAULT-VALUE}")
  long overrideRetentionMs;

  @Option(names = "--self-preservation", arity = "1",
      description = "Stop expiring instances for missed heartbeats when far fewer arrive than expected "
          + "Default: ${DEFAULT-VALUE}")
  boolean selfPreservation;

  @Option(names = "--self-preservation-window-ms",
      description = "Window over which heartbeats are counted. "
          + "Default: ${DEFAULT-VALUE}")
  long selfPreservationWindowMs;

  @Option(names = "--self-preservation-threshold",
      description = "Below this share of the expected heartbeats, expiry stops. "
          + "Default: ${DEFAULT-VALUE}")
  double selfPreservationThreshold;

  @Option(names = "--health-check-interval-ms",
      description = "How often each persistent instance is checked. Default: ${DEFAULT-VALUE}")
  long healthCheckIntervalMs;

  @Option(names = "--health-check-timeout-ms",
      description = "How long a check may take before it counts as failed. Default: ${DEFAULT-VALUE}")
  long healthCheckTimeoutMs;

  @Option(names = "--health-check-concurrency",
      description = "Checks in flight at once. Default: ${DEFAULT-VALUE}")
  int healthCheckConcurrency;

  @Option(names = "--health-check-ca-file",
      description = "PEM CA certificate(s) trusted by https health checks (instances with health.http.scheme=https); "
          + "default: the JVM's trust store. Default: none")
  Path healthCheckCaFile;

  @Option(names = "--data-dir",
      description = "Directory of the Raft log and snapshots that keep service definitions, persistent instances "
          + "and overrides across restarts. Default: ${DEFAULT-VALUE}")
  Path dataDir;

  @Option(names = "--restore-from",
      description = "A backup file (registry-cli backup) to start a new --data-dir from; refused when the directory "
          + "already holds durable state. Give every member of a new cluster the same file. Default: none")
  Path restoreFrom;

  @Option(names = "--raft-port",
      description = "Raft RPC port, on loopback while the group has one node. Default: ${DEFAULT-VALUE}")
  int raftPort;

  @Option(names = "--node-id",
      description = "This node's id among the --members of its cluster. Default: none (a single server)")
  String nodeId;

  @Option(names = "--members",
      description = "Every member of the cluster, this node included: id=host:port/raftPort, comma-separated "
          + "(n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290); this node's entry gives its "
          + "RSocket TCP port and its Raft port. Default: none (a single server)")
  String members;

  @Option(names = "--join",
      description = "The RSocket address (host:port) of a member of a running cluster to join: this new member "
          + "asks it to be added, then receives the durable state; --members then gives this node's own entry "
          + "only. Default: none")
  String join;

  @Option(names = "--raft-leader-warm-up", arity = "1",
      description = "A cluster member runs Raft's leader code once as it starts (a throwaway group on loopback, "
          + "1-3 s of CPU in the background), so that leadership handed to it in a planned stop does not run that "
          + "code cold. Default: ${DEFAULT-VALUE}")
  boolean raftLeaderWarmUp;

  @Option(names = "--snapshot-every",
      description = "Log entries between snapshots; the log before a snapshot is deleted. Default: ${DEFAULT-VALUE}")
  long snapshotEvery;

  @Option(names = "--max-uncommitted-writes",
      description = "Commands whose durable changes may wait to be committed; past it durable writes are refused "
          + "(LIMIT_EXCEEDED, retry) until storage catches up. Default: ${DEFAULT-VALUE}")
  int maxUncommittedWrites;

  @Option(names = "--allow-unauthenticated", arity = "0..1",
      description = "Serve connections from any address without credentials. Without it the server is in protected "
          + "mode: only loopback connections are served. Default: ${DEFAULT-VALUE}")
  boolean allowUnauthenticated;

  @Option(names = "--token-file",
      description = "JSON file of the bearer tokens the server accepts (their SHA-256 hashes, names and permissions "
          + "by namespace); read again when it changes. With it every request needs a token, from any address. "
          + "Default: none")
  Path tokenFile;

  @Option(names = "--jwt-keys-file",
      description = "Keys that verify signed bearer tokens (JWTs, HS256/RS256/ES256): a JWK Set file, or PEM public "
          + "keys. A token names its principal in sub, its permissions in a permissions claim, and must expire "
          + "(exp). With it every request needs a token, from any address. Default: none")
  Path jwtKeysFile;

  @Option(names = "--max-failed-authentications",
      description = "Tokens that are not valid one address may present in a window; past it every token from that "
          + "address is refused (LIMIT_EXCEEDED) until the window ends. Default: ${DEFAULT-VALUE}")
  int maxFailedAuthentications;

  @Option(names = "--failed-authentication-window-ms",
      description = "The window of --max-failed-authentications, from an address's first failure. "
          + "Default: ${DEFAULT-VALUE}")
  long failedAuthenticationWindowMs;

  @Option(names = "--tls-cert-file",
      description = "PEM certificate chain of the server: with --tls-key-file, every port speaks TLS (RSocket over "
          + "TCP, wss:// and https://); read again when it changes. Default: none")
  Path tlsCertFile;

  @Option(names = "--tls-key-file", description = "PEM private key (PKCS#8) of --tls-cert-file. Default: none")
  Path tlsKeyFile;

  @Option(names = "--tls-client-ca-file",
      description = "PEM CA certificate(s): every client must present a certificate it signed (mutual TLS). "
          + "Default: none")
  Path tlsClientCaFile;

  @Option(names = "--in-memory", arity = "0..1",
      description = "Keep durable state in memory only: nothing survives a restart (trying things out, tests).")
  boolean inMemory;

  public static void main(String[] args) {
    NettyDefaults.apply(new NettyDefaults.LeakDetector(RaftNetty.LEAK_DETECTION, RaftNetty::disableLeakDetection));
    System.exit(commandLine(args, System.getenv()).execute(args));
  }

  /** Settings come from the flags, then the environment, then the file, then {@link SettingDefaults}. */
  static CommandLine commandLine(String[] args, java.util.Map<String, String> environment) {
    return new CommandLine(new Main()).setDefaultValueProvider(ConfigSources.from(args, environment));
  }

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config = toConfig();
    FatalErrors.exitOnOutOfMemory();
    RegistryServer server = RegistryServer.start(config).block(Duration.ofMinutes(6));
    if (server == null) {
      throw new IllegalStateException("server did not start");
    }
    log.info("reactive registry {} listening: rsocket+tcp://{}:{}, rsocket+ws://{}:{}/rsocket, http://{}:{}",
        RegistryServer.version(), config.host(), server.tcpPort(), config.host(), server.webSocketPort(), config.host(),
        server.httpPort());
    if (server.nacosHttpPort() >= 0) {
      log.info("nacos door: http://{}:{}/nacos/ (Open API, login), gRPC on {}:{}", config.host(), server.nacosHttpPort(),
          config.host(), server.nacosGrpcPort());
    }
    log.info("memory: heap at most {} MiB, direct memory (network buffers) at most {} MiB",
        Runtime.getRuntime().maxMemory() >> 20, io.netty.util.internal.PlatformDependent.maxDirectMemory() >> 20);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      log.info("shutting down");
      server.disposeNow(Duration.ofSeconds(10));
      stopped.countDown();
    }, "registry-shutdown"));
    server.onClose().block();
    stopped.await();
    return 0;
  }

  ServerConfig toConfig() {
    try {
      return configFromOptions();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
    }
  }

  /** The gRPC port follows the HTTP one (Nacos's + 1000) unless it is given itself. */
  private NacosDoor.Settings nacosSettings() {
    if (nacosPort == -1) {
      return NacosDoor.Settings.OFF;
    }
    boolean grpcGiven = nacosGrpcPort != NacosDoor.Settings.DEFAULTS.grpcPort();
    return grpcGiven ? new NacosDoor.Settings(nacosPort, nacosGrpcPort) : NacosDoor.Settings.on(nacosPort);
  }

  private ServerConfig configFromOptions() {
    ClusterConfig cluster = ClusterConfig.parse(nodeId, members);
    if (inMemory && restoreFrom != null) {
      throw new IllegalArgumentException("--restore-from writes the backup into --data-dir: it cannot be used with "
          + "--in-memory");
    }
    if (join != null && (!cluster.clustered() || cluster.members().size() != 1)) {
      throw new IllegalArgumentException("--join needs --node-id and --members giving this node's own entry only "
          + "(id=host:port/raftPort): the cluster it joins tells it the other members");
    }
    if (join != null && !join.matches("(\\[[^\\]]+\\]|[^:/\\[\\]]+):\\d{1,5}")) {
      throw new IllegalArgumentException("--join '" + join + "' must be a member's RSocket address, host:port "
          + "(for example 127.0.0.1:7070)");
    }
    if (cluster.clustered()) {
      if (inMemory) {
        throw new IllegalArgumentException("a cluster member keeps its durable state on disk: --in-memory cannot be "
            + "used with --members");
      }
      ClusterConfig.Member self = cluster.self();
      if (port != ServerConfig.DEFAULTS.tcpPort() && port != self.port()) {
        throw new IllegalArgumentException("--port " + port + " disagrees with this node's entry in --members ("
            + self + "): give the port there only");
      }
      if (raftPort != StorageConfig.DEFAULTS.raftPort() && raftPort != self.raftPort()) {
        throw new IllegalArgumentException("--raft-port " + raftPort + " disagrees with this node's entry in "
            + "--members (" + self + "): give the Raft port there only");
      }
    }
    int tcpPort = cluster.clustered() ? cluster.self().port() : port;
    HeartbeatTimings timings = new HeartbeatTimings(heartbeatIntervalMs, heartbeatTimeoutMs, deleteTimeoutMs);
    return ServerConfig.DEFAULTS
        .withHost(host)
        .withTcpPort(tcpPort)
        .withWebSocketPort(webSocketPort)
        .withHttpPort(httpPort)
        .withLimits(new ServerLimits(maxPayloadBytes, maxSubscriptionsPerConnection, maxOutboundBacklogBytes,
            minKeepAliveIntervalMs, httpIdleTimeoutMs, maxSetupBytes, setupTimeoutMs,
            new ConnectionDoor.Limits(maxConnectionsPerPort, maxConnectionsPerAddress),
            new ConnectionDoor.Limits(maxHttpConnections, maxHttpConnectionsPerAddress),
            new ServerLimits.FragmentLimits(maxFragmentBytesPerConnection, maxFragmentBytes)))
        .withMaxInstancesPerConnection(maxInstancesPerConnection)
        .withQuotas(new Quotas(maxNamespaces, maxServices, maxServicesPerNamespace, maxPersistentInstances,
            maxPersistentInstancesPerNamespace, maxDurableMetadataBytes, maxDurableMetadataBytesPerNamespace,
            maxHttpInstances))
        .withMaxPendingEvents(maxPendingEvents)
        .withHeartbeat(timings)
        .withLifecycle(new LifecycleConfig(Duration.ofMillis(emptyServiceCleanupMs), Duration.ofMillis(overrideRetentionMs),
            selfPreservation, Duration.ofMillis(selfPreservationWindowMs), selfPreservationThreshold))
        .withHealthChecks(new ServerConfig.HealthChecks(Duration.ofMillis(healthCheckIntervalMs),
            Duration.ofMillis(healthCheckTimeoutMs), healthCheckConcurrency, healthCheckCaFile))
        .withStorage(inMemory ? StorageConfig.inMemory()
            : new StorageConfig(dataDir, raftPort, snapshotEvery, maxUncommittedWrites).withCluster(cluster)
                .withRestoreFrom(restoreFrom).withJoin(join).withLeaderWarmUp(raftLeaderWarmUp))
        .withExpiryTick(Duration.ofMillis(expiryTickMs))
        .withExpiryBudget(expiryBudget)
        .withReplication(new Replication.Settings(Duration.ofMillis(replicationGraceMs),
            Duration.ofMillis(antiEntropyIntervalMs), Duration.ofMillis(moveTimeoutMs), rebalancePerRound,
            rebalanceTolerance, zone == null || zone.isBlank() ? null : Names.require("--zone", zone.strip())))
        .withResumeHistory(new ResumeHistory.Limits(resumeHistoryEvents, Duration.ofMillis(resumeHistoryMs),
            resumeHistoryTotal))
        .withCoalescing(new Pacing.Settings(Duration.ofMillis(coalesceWindowMs), coalesceFramesPerSecond))
        .withHistory(new AuditHistory.Settings(historyEvents, Duration.ofMillis(historyMs), historyFile,
            historyFileMaxBytes, historyFileKeep))
        .withEureka(new EurekaDoor.Settings(Names.require("--eureka-namespace", eurekaNamespace),
            Names.require("--eureka-group", eurekaGroup)))
        .withNacos(nacosSettings())
        .withTracing(new Tracing.Settings(otlpEndpoint, traceSampleRatio))
        .withSecurity(new SecurityConfig(allowUnauthenticated, tokenFile, jwtKeysFile, maxFailedAuthentications,
            Duration.ofMillis(failedAuthenticationWindowMs), TlsFiles.of(tlsCertFile, tlsKeyFile, tlsClientCaFile))
            .withPeerTokenFile(peerTokenFile));
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"reactive-registry-server " + RegistryServer.version()};
    }
  }
}
