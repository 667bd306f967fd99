package io.reactiveregistry.server.core;

/**
 * The core's settings.
 *
 * @param defaultTimings heartbeat timings of instances that do not override them
 * @param maxInstancesPerOwner how many ephemeral instances one connection may own
 * @param expiryBudget how many instances one expiry pass may look at, so a mass expiry is spread
 *     over several passes instead of stalling every other command
 * @param quotas how much the registry holds, in all and per namespace
 */
public record RegistryConfig(HeartbeatTimings defaultTimings, int maxInstancesPerOwner, int expiryBudget,
    Quotas quotas) {
  /** At most 1,000 instances per expiry pass: with a pass every 100 ms, 10,000 expiries a second. */
  public static final RegistryConfig DEFAULTS = new RegistryConfig(HeartbeatTimings.DEFAULTS, 10_000, 1_000);

  /** With the default quotas. */
  public RegistryConfig(HeartbeatTimings defaultTimings, int maxInstancesPerOwner, int expiryBudget) {
    this(defaultTimings, maxInstancesPerOwner, expiryBudget, Quotas.DEFAULTS);
  }
}
