package io.reactiveregistry.server.core;

import org.jspecify.annotations.Nullable;

/** What the core answers to reads. */
public final class Results {
  private Results() {}

  /** Instances by type and health, for the meters. */
  public record InstanceCounts(int ephemeralHealthy, int ephemeralUnhealthy, int persistentHealthy,
      int persistentUnhealthy) {}

  /**
   * A namespace that holds at least one service, with what it holds: its services, their instances
   * and how many of those are healthy.
   */
  public record NamespaceSummary(String namespace, int services, int instances, int healthyInstances) {}

  /**
   * One line of a service listing; {@code protectionTriggered}: a healthy-only view of it now shows
   * every instance, the healthy ones being fewer than its protect threshold.
   */
  public record ServiceSummary(ServiceKey service, boolean ephemeral, int instanceCount, int healthyCount,
      boolean protectionTriggered) {}

  /**
   * One instance as an operator sees it: its view, who owns it and when it was last heard from
   * (ephemeral ones), and the operator's override of it.
   *
   * @param owner the owning connection's label, or for another node's copy that node; null for a
   *     persistent instance
   * @param ownerId the owning connection's id on this node; 0 for none (persistent, or another node's)
   * @param lastHeartbeatAt when its last heartbeat (or registration) arrived, in the registry's clock's
   *     milliseconds; null for a persistent instance or another node's copy
   * @param override the operator's override; null for none
   */
  public record InstanceRecord(InstanceView view, @Nullable String owner, long ownerId, @Nullable Long lastHeartbeatAt,
      @Nullable InstanceOverride override, @Nullable HealthCheck lastCheck) {}
}
