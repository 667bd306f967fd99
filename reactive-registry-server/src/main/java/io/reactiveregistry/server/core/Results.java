package io.reactiveregistry.server.core;

/** What the core answers to reads. */
public final class Results {
  private Results() {}

  /** Instances by type and health, for the meters. */
  public record InstanceCounts(int ephemeralHealthy, int ephemeralUnhealthy, int persistentHealthy,
      int persistentUnhealthy) {}

  /** One line of a service listing. */
  public record ServiceSummary(ServiceKey service, boolean ephemeral, int instanceCount, int healthyCount) {}
}
