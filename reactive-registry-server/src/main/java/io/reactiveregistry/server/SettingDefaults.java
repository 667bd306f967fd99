package io.reactiveregistry.server;

import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.storage.StorageConfig;
import io.reactiveregistry.server.transport.ServerLimits;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The built-in default of every command-line setting, read from the {@code DEFAULTS} records
 * ({@link ServerConfig#DEFAULTS} and what it holds), so that each default is written once and the
 * command line and an embedded server start the same way.
 */
final class SettingDefaults {
  private SettingDefaults() {}

  /** Flag to default value, as the command line would spell it. */
  static Map<String, String> byFlag() {
    ServerConfig config = ServerConfig.DEFAULTS;
    ServerLimits limits = config.limits();
    LifecycleConfig lifecycle = config.lifecycle();
    StorageConfig storage = config.storage();
    Map<String, String> defaults = new LinkedHashMap<>();
    put(defaults, "--host", config.host());
    put(defaults, "--port", config.tcpPort());
    put(defaults, "--ws-port", config.webSocketPort());
    put(defaults, "--http-port", config.httpPort());
    put(defaults, "--max-payload-bytes", limits.maxPayloadBytes());
    put(defaults, "--max-instances-per-connection", config.maxInstancesPerConnection());
    put(defaults, "--max-subscriptions-per-connection", limits.maxSubscriptionsPerConnection());
    put(defaults, "--max-outbound-backlog-bytes", limits.maxOutboundBacklogBytes());
    put(defaults, "--min-keepalive-interval-ms", limits.minKeepAliveIntervalMs());
    put(defaults, "--http-idle-timeout-ms", limits.httpIdleTimeoutMs());
    put(defaults, "--max-setup-bytes", limits.maxSetupBytes());
    put(defaults, "--setup-timeout-ms", limits.setupTimeoutMs());
    put(defaults, "--max-connections-per-port", limits.rsocketConnections().maxConnections());
    put(defaults, "--max-connections-per-address", limits.rsocketConnections().maxPerAddress());
    put(defaults, "--max-http-connections", limits.httpConnections().maxConnections());
    put(defaults, "--max-http-connections-per-address", limits.httpConnections().maxPerAddress());
    put(defaults, "--max-fragment-bytes-per-connection", limits.fragments().perConnection());
    put(defaults, "--max-fragment-bytes", limits.fragments().total());
    put(defaults, "--max-namespaces", config.quotas().maxNamespaces());
    put(defaults, "--max-services", config.quotas().maxServices());
    put(defaults, "--max-services-per-namespace", config.quotas().maxServicesPerNamespace());
    put(defaults, "--max-persistent-instances", config.quotas().maxPersistentInstances());
    put(defaults, "--max-persistent-instances-per-namespace", config.quotas().maxPersistentInstancesPerNamespace());
    put(defaults, "--max-http-instances", config.quotas().maxHttpInstances());
    put(defaults, "--eureka-namespace", config.eureka().namespace());
    put(defaults, "--eureka-group", config.eureka().group());
    put(defaults, "--nacos-port", config.nacos().httpPort());
    put(defaults, "--nacos-grpc-port", config.nacos().grpcPort());
    put(defaults, "--max-durable-metadata-bytes", config.quotas().maxDurableMetadataBytes());
    put(defaults, "--max-durable-metadata-bytes-per-namespace",
        config.quotas().maxDurableMetadataBytesPerNamespace());
    put(defaults, "--max-pending-events", config.maxPendingEvents());
    put(defaults, "--heartbeat-interval-ms", config.heartbeat().intervalMs());
    put(defaults, "--heartbeat-timeout-ms", config.heartbeat().timeoutMs());
    put(defaults, "--delete-timeout-ms", config.heartbeat().deleteTimeoutMs());
    put(defaults, "--expiry-tick-ms", config.expiryTick().toMillis());
    put(defaults, "--expiry-budget", config.expiryBudget());
    put(defaults, "--resume-history-events", config.resumeHistory().eventsPerService());
    put(defaults, "--resume-history-ms", config.resumeHistory().maxAge().toMillis());
    put(defaults, "--resume-history-total", config.resumeHistory().totalEvents());
    put(defaults, "--coalesce-window-ms", config.coalescing().window().toMillis());
    put(defaults, "--coalesce-frames-per-second", config.coalescing().framesPerSecond());
    put(defaults, "--history-events", config.history().maxEvents());
    put(defaults, "--history-ms", config.history().maxAge().toMillis());
    put(defaults, "--history-file-max-bytes", config.history().fileMaxBytes());
    put(defaults, "--history-file-keep", config.history().fileKeep());
    put(defaults, "--trace-sample-ratio", config.tracing().sampleRatio());
    put(defaults, "--replication-grace-ms", config.replication().grace().toMillis());
    put(defaults, "--anti-entropy-interval-ms", config.replication().antiEntropy().toMillis());
    put(defaults, "--move-timeout-ms", config.replication().moveTimeout().toMillis());
    put(defaults, "--rebalance-per-round", config.replication().rebalancePerRound());
    put(defaults, "--rebalance-tolerance", config.replication().rebalanceTolerance());
    put(defaults, "--empty-service-cleanup-ms", lifecycle.emptyServiceCleanup().toMillis());
    put(defaults, "--override-retention-ms", lifecycle.overrideRetention().toMillis());
    put(defaults, "--self-preservation", lifecycle.selfPreservation());
    put(defaults, "--self-preservation-window-ms", lifecycle.selfPreservationWindow().toMillis());
    put(defaults, "--self-preservation-threshold", lifecycle.selfPreservationThreshold());
    put(defaults, "--health-check-interval-ms", config.healthChecks().interval().toMillis());
    put(defaults, "--health-check-timeout-ms", config.healthChecks().timeout().toMillis());
    put(defaults, "--health-check-concurrency", config.healthChecks().concurrency());
    put(defaults, "--data-dir", storage.dataDir());
    put(defaults, "--raft-port", storage.raftPort());
    put(defaults, "--raft-leader-warm-up", storage.leaderWarmUp());
    put(defaults, "--snapshot-every", storage.snapshotEvery());
    put(defaults, "--max-uncommitted-writes", storage.maxNotDurable());
    put(defaults, "--allow-unauthenticated", config.security().allowUnauthenticated());
    put(defaults, "--max-failed-authentications", config.security().maxFailedAuthentications());
    put(defaults, "--failed-authentication-window-ms", config.security().failedAuthenticationWindow().toMillis());
    put(defaults, "--in-memory", !storage.durable());
    return defaults;
  }

  private static void put(Map<String, String> defaults, String flag, Object value) {
    defaults.put(flag, String.valueOf(value));
  }
}
