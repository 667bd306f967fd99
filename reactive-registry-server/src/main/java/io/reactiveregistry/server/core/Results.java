package io.reactiveregistry.server.core;

import java.util.List;

/** What the core answers to commands. */
public final class Results {
  private Results() {}

  public record Registered(String instanceId, long revision, HeartbeatTimings timings) {}

  public record Deregistered(boolean removed, long revision) {}

  public record BatchRegistered(List<String> instanceIds, long revision) {}

  /** Instances by type and health, for the meters. */
  public record InstanceCounts(int ephemeralHealthy, int ephemeralUnhealthy, int persistentHealthy,
      int persistentUnhealthy) {}

  /** One line of a service listing. */
  public record ServiceSummary(ServiceKey service, boolean ephemeral, int instanceCount, int healthyCount) {}

  /** What a heartbeat did; a heartbeat has no answer on the wire, but it is counted. */
  public enum HeartbeatOutcome {
    REFRESHED,
    RECREATED,
    IGNORED_PERSISTENT,
    IGNORED_NOT_OWNER,
    IGNORED_DEREGISTERED
  }
}
