package io.reactiveregistry.server;

import io.reactiveregistry.server.audit.AuditHistory;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.core.Quotas;
import io.reactiveregistry.server.core.RegistryConfig;
import io.reactiveregistry.server.eureka.EurekaDoor;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.push.Pacing;
import io.reactiveregistry.server.push.ResumeHistory;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.storage.StorageConfig;
import io.reactiveregistry.server.tracing.Tracing;
import io.reactiveregistry.server.transport.ServerLimits;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Everything a server is started with. Immutable; each {@code with...} returns a copy.
 *
 * @param host address to bind
 * @param tcpPort RSocket over TCP; 0 picks a free port
 * @param webSocketPort RSocket over WebSocket, path {@code /rsocket}; 0 picks a free port
 * @param httpPort health, readiness, metrics and the read-only JSON API; 0 picks a free port
 * @param limits per-connection limits
 * @param maxInstancesPerConnection ephemeral instances one connection may own
 * @param maxPendingEvents events one subscriber may have pending before they collapse into a snapshot
 * @param heartbeat default heartbeat timings
 * @param expiryTick how often heartbeat deadlines are applied
 * @param lifecycle empty-service cleanup, override retention and self-preservation
 * @param healthChecks checks of persistent instances
 * @param storage where durable state is kept (service definitions, persistent instances, overrides)
 * @param quotas how much the registry holds, in all and per namespace
 * @param expiryBudget instances one expiry pass may look at, so that a mass expiry is spread over
 *     several passes instead of holding up every other command
 * @param security who may use the server (protected mode unless told otherwise)
 * @param replication how long a lost peer's ephemeral instances are kept, and how often peers compare digests
 * @param resumeHistory how much of each subscribed service's recent changes is kept for subscribers that resume
 * @param coalescing how often a subscriber that asked to coalesce is written to: the least time between two
 *     frames (zero: none), widened so that all of them together get at most so many frames a second
 * @param eureka where the Eureka door's applications live (a namespace and a group)
 * @param nacos the Nacos door's ports (HTTP Open API and gRPC), or off
 * @param history how much of the audit trail is kept for {@code admin.trace.query}
 * @param tracing where spans are exported, and how requests without a trace context are sampled
 */
public record ServerConfig(
    String host, int tcpPort, int webSocketPort, int httpPort, ServerLimits limits, int maxInstancesPerConnection, int maxPendingEvents,
    HeartbeatTimings heartbeat, Duration expiryTick, LifecycleConfig lifecycle, HealthChecks healthChecks,
    StorageConfig storage, Quotas quotas, int expiryBudget, SecurityConfig security, Replication.Settings replication,
    ResumeHistory.Limits resumeHistory, Pacing.Settings coalescing, EurekaDoor.Settings eureka,
    NacosDoor.Settings nacos, AuditHistory.Settings history, Tracing.Settings tracing) {

  public ServerConfig {
    for (int port : new int[] {tcpPort, webSocketPort, httpPort}) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("a port is from 0 (any free one) to 65535: " + port);
      }
    }
    atLeastOne("the instances one connection may own", maxInstancesPerConnection);
    atLeastOne("the events a subscriber may have pending", maxPendingEvents);
    atLeastOne("the expiry budget", expiryBudget);
    if (expiryTick.toMillis() < 1) {
      throw new IllegalArgumentException("the expiry tick must be at least 1 ms: " + expiryTick);
    }
  }

  private static void atLeastOne(String setting, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(setting + " must be at least 1: " + value);
    }
  }

  /** Checks of persistent instances: how often each is checked, how long a check may take, how many at once. */
  public record HealthChecks(Duration interval, Duration timeout, int concurrency, @Nullable Path caFile) {
    public HealthChecks(Duration interval, Duration timeout, int concurrency) {
      this(interval, timeout, concurrency, null);
    }

    public HealthChecks {
      if (interval.toMillis() < 1 || timeout.toMillis() < 1 || concurrency < 1) {
        throw new IllegalArgumentException("health checks need an interval and a timeout of at least 1 ms and a "
            + "concurrency of at least 1: " + interval + ", " + timeout + ", " + concurrency);
      }
    }

    public static final HealthChecks DEFAULTS = new HealthChecks(Duration.ofSeconds(5), Duration.ofSeconds(2), 64);
  }

  public static final ServerConfig DEFAULTS = new ServerConfig("0.0.0.0", 7070, 7071, 7080, ServerLimits.DEFAULTS,
      10_000, 1_000, HeartbeatTimings.DEFAULTS, Duration.ofMillis(100), LifecycleConfig.DEFAULTS,
      HealthChecks.DEFAULTS, StorageConfig.DEFAULTS, Quotas.DEFAULTS,
      RegistryConfig.DEFAULTS.expiryBudget(), SecurityConfig.DEFAULTS, Replication.Settings.DEFAULTS,
      ResumeHistory.Limits.DEFAULTS,
      Pacing.Settings.DEFAULTS, EurekaDoor.Settings.DEFAULTS, NacosDoor.Settings.DEFAULTS,
      AuditHistory.Settings.DEFAULTS, Tracing.Settings.DEFAULTS);

  /** Loopback on free ports, durable state in memory only: what tests and embedded uses want. */
  public static ServerConfig ephemeralLoopback() {
    return DEFAULTS.withHost("127.0.0.1").withTcpPort(0).withWebSocketPort(0).withHttpPort(0)
        .withStorage(StorageConfig.inMemory()).withNacos(NacosDoor.Settings.OFF);
  }

  public ServerConfig withHost(String value) {
    return new ServerConfig(value, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents, heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withTcpPort(int value) {
    return new ServerConfig(host, value, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents, heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withWebSocketPort(int value) {
    return new ServerConfig(host, tcpPort, value, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withHttpPort(int value) {
    return new ServerConfig(host, tcpPort, webSocketPort, value, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withLimits(ServerLimits value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, value, maxInstancesPerConnection, maxPendingEvents, heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withMaxInstancesPerConnection(int value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, value, maxPendingEvents, heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withMaxPendingEvents(int value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, value, heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withHeartbeat(HeartbeatTimings value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents, value, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withExpiryTick(Duration value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents, heartbeat, value, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withLifecycle(LifecycleConfig value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents, heartbeat, expiryTick, value, healthChecks, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withHealthChecks(HealthChecks value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, value, storage, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withStorage(StorageConfig value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, value, quotas, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withQuotas(Quotas value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, value, expiryBudget, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withExpiryBudget(int value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, value, security, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withSecurity(SecurityConfig value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, value, replication, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withReplication(Replication.Settings value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, value, resumeHistory, coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withResumeHistory(ResumeHistory.Limits value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication, value,
        coalescing, eureka, nacos, history, tracing);
  }

  public ServerConfig withCoalescing(Pacing.Settings value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication,
        resumeHistory, value, eureka, nacos, history, tracing);
  }

  /** The same coalesced frames per second, with another window. */
  public ServerConfig withCoalesceWindow(Duration value) {
    return withCoalescing(coalescing.withWindow(value));
  }

  public ServerConfig withEureka(EurekaDoor.Settings value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication,
        resumeHistory, coalescing, value, nacos, history, tracing);
  }

  public ServerConfig withNacos(NacosDoor.Settings value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication,
        resumeHistory, coalescing, eureka, value, history, tracing);
  }

  RegistryConfig registryConfig() {
    return new RegistryConfig(heartbeat, maxInstancesPerConnection, expiryBudget, quotas);
  }

  public ServerConfig withTracing(Tracing.Settings value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication,
        resumeHistory, coalescing, eureka, nacos, history, value);
  }

  public ServerConfig withHistory(AuditHistory.Settings value) {
    return new ServerConfig(host, tcpPort, webSocketPort, httpPort, limits, maxInstancesPerConnection, maxPendingEvents,
        heartbeat, expiryTick, lifecycle, healthChecks, storage, quotas, expiryBudget, security, replication,
        resumeHistory, coalescing, eureka, nacos, value, tracing);
  }
}
