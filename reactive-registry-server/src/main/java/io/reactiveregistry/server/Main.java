package io.reactiveregistry.server;

import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.transport.ServerLimits;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar reactive-registry-server.jar}: starts a server with embedded defaults. */
@Command(name = "reactive-registry-server", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "A non-blocking service registry over RSocket. Every option can also be set with the "
        + "environment variable shown in its description.",
    sortOptions = false)
public final class Main implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(Main.class);

  @Option(names = "--host", defaultValue = "${env:REGISTRY_HOST:-0.0.0.0}",
      description = "Address to bind (REGISTRY_HOST). Default: ${DEFAULT-VALUE}")
  String host;

  @Option(names = "--port", defaultValue = "${env:REGISTRY_PORT:-7070}",
      description = "RSocket TCP port; 0 picks a free one (REGISTRY_PORT). Default: ${DEFAULT-VALUE}")
  int port;

  @Option(names = "--max-payload-bytes", defaultValue = "${env:REGISTRY_MAX_PAYLOAD_BYTES:-1048576}",
      description = "Largest request body (REGISTRY_MAX_PAYLOAD_BYTES). Default: ${DEFAULT-VALUE}")
  int maxPayloadBytes;

  @Option(names = "--max-instances-per-connection", defaultValue = "${env:REGISTRY_MAX_INSTANCES_PER_CONNECTION:-10000}",
      description = "Ephemeral instances one connection may own (REGISTRY_MAX_INSTANCES_PER_CONNECTION). "
          + "Default: ${DEFAULT-VALUE}")
  int maxInstancesPerConnection;

  @Option(names = "--max-subscriptions-per-connection",
      defaultValue = "${env:REGISTRY_MAX_SUBSCRIPTIONS_PER_CONNECTION:-1000}",
      description = "Open subscriptions per connection (REGISTRY_MAX_SUBSCRIPTIONS_PER_CONNECTION). "
          + "Default: ${DEFAULT-VALUE}")
  int maxSubscriptionsPerConnection;

  @Option(names = "--max-outbound-backlog-bytes", defaultValue = "${env:REGISTRY_MAX_OUTBOUND_BACKLOG_BYTES:-33554432}",
      description = "Bytes that may wait to be sent to a peer that is not reading before its connection is closed "
          + "(REGISTRY_MAX_OUTBOUND_BACKLOG_BYTES). Default: ${DEFAULT-VALUE}")
  int maxOutboundBacklogBytes;

  @Option(names = "--max-pending-events", defaultValue = "${env:REGISTRY_MAX_PENDING_EVENTS:-1000}",
      description = "Events a slow subscriber may have pending before they collapse into one snapshot "
          + "(REGISTRY_MAX_PENDING_EVENTS). Default: ${DEFAULT-VALUE}")
  int maxPendingEvents;

  @Option(names = "--heartbeat-interval-ms", defaultValue = "${env:REGISTRY_HEARTBEAT_INTERVAL_MS:-5000}",
      description = "Default heartbeat interval (REGISTRY_HEARTBEAT_INTERVAL_MS). Default: ${DEFAULT-VALUE}")
  long heartbeatIntervalMs;

  @Option(names = "--heartbeat-timeout-ms", defaultValue = "${env:REGISTRY_HEARTBEAT_TIMEOUT_MS:-15000}",
      description = "Unhealthy after this long without a heartbeat (REGISTRY_HEARTBEAT_TIMEOUT_MS). "
          + "Default: ${DEFAULT-VALUE}")
  long heartbeatTimeoutMs;

  @Option(names = "--delete-timeout-ms", defaultValue = "${env:REGISTRY_DELETE_TIMEOUT_MS:-30000}",
      description = "Removed after this long without a heartbeat (REGISTRY_DELETE_TIMEOUT_MS). Default: ${DEFAULT-VALUE}")
  long deleteTimeoutMs;

  @Option(names = "--empty-service-cleanup-ms", defaultValue = "${env:REGISTRY_EMPTY_SERVICE_CLEANUP_MS:-60000}",
      description = "A service created by a registration is removed after being empty this long "
          + "(REGISTRY_EMPTY_SERVICE_CLEANUP_MS). Default: ${DEFAULT-VALUE}")
  long emptyServiceCleanupMs;

  @Option(names = "--override-retention-ms", defaultValue = "${env:REGISTRY_OVERRIDE_RETENTION_MS:-600000}",
      description = "An operator override is dropped once its instance has been gone this long "
          + "(REGISTRY_OVERRIDE_RETENTION_MS). Default: ${DEFAULT-VALUE}")
  long overrideRetentionMs;

  @Option(names = "--self-preservation", defaultValue = "${env:REGISTRY_SELF_PRESERVATION:-true}", arity = "1",
      description = "Stop expiring instances for missed heartbeats when far fewer arrive than expected "
          + "(REGISTRY_SELF_PRESERVATION). Default: ${DEFAULT-VALUE}")
  boolean selfPreservation;

  @Option(names = "--self-preservation-window-ms", defaultValue = "${env:REGISTRY_SELF_PRESERVATION_WINDOW_MS:-60000}",
      description = "Window over which heartbeats are counted (REGISTRY_SELF_PRESERVATION_WINDOW_MS). "
          + "Default: ${DEFAULT-VALUE}")
  long selfPreservationWindowMs;

  @Option(names = "--self-preservation-threshold", defaultValue = "${env:REGISTRY_SELF_PRESERVATION_THRESHOLD:-0.85}",
      description = "Below this share of the expected heartbeats, expiry stops (REGISTRY_SELF_PRESERVATION_THRESHOLD). "
          + "Default: ${DEFAULT-VALUE}")
  double selfPreservationThreshold;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public Integer call() throws InterruptedException {
    ServerConfig config = toConfig();
    RegistryServer server = RegistryServer.start(config).block(Duration.ofSeconds(30));
    if (server == null) {
      throw new IllegalStateException("server did not start");
    }
    log.info("reactive registry {} listening on rsocket+tcp://{}:{}", RegistryServer.version(), config.host(),
        server.tcpPort());
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
    HeartbeatTimings timings;
    try {
      timings = new HeartbeatTimings(heartbeatIntervalMs, heartbeatTimeoutMs, deleteTimeoutMs);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
    }
    return ServerConfig.DEFAULTS
        .withHost(host)
        .withTcpPort(port)
        .withLimits(new ServerLimits(maxPayloadBytes, maxSubscriptionsPerConnection, maxOutboundBacklogBytes))
        .withMaxInstancesPerConnection(maxInstancesPerConnection)
        .withMaxPendingEvents(maxPendingEvents)
        .withHeartbeat(timings)
        .withLifecycle(new LifecycleConfig(Duration.ofMillis(emptyServiceCleanupMs), Duration.ofMillis(overrideRetentionMs),
            selfPreservation, Duration.ofMillis(selfPreservationWindowMs), selfPreservationThreshold));
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"reactive-registry-server " + RegistryServer.version()};
    }
  }
}
