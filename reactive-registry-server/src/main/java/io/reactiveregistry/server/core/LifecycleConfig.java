package io.reactiveregistry.server.core;

import java.time.Duration;

/**
 * Settings of the registry's time-based rules beyond heartbeats.
 *
 * @param emptyServiceCleanup a service created by a registration is removed after being empty this long
 * @param overrideRetention an operator override is dropped once its instance has been gone this long
 * @param selfPreservation whether missed heartbeats stop expiring instances when too few arrive
 * @param selfPreservationWindow the sliding window over which heartbeats are counted
 * @param selfPreservationThreshold below this share of the expected heartbeats, expiry stops
 */
public record LifecycleConfig(
    Duration emptyServiceCleanup, Duration overrideRetention, boolean selfPreservation,
    Duration selfPreservationWindow, double selfPreservationThreshold) {

  public LifecycleConfig {
    if (emptyServiceCleanup.isNegative() || overrideRetention.isNegative()) {
      throw new IllegalArgumentException("the empty-service cleanup and override retention times cannot be negative: "
          + emptyServiceCleanup + ", " + overrideRetention);
    }
    if (selfPreservationWindow.toSeconds() < 1) {
      throw new IllegalArgumentException("the self-preservation window must be at least 1 s: "
          + selfPreservationWindow);
    }
    if (!(selfPreservationThreshold >= 0 && selfPreservationThreshold <= 1)) {
      throw new IllegalArgumentException("the self-preservation threshold is a share of the expected heartbeats, "
          + "from 0 to 1: " + selfPreservationThreshold);
    }
  }

  public static final LifecycleConfig DEFAULTS = new LifecycleConfig(Duration.ofSeconds(60), Duration.ofMinutes(10),
      true, Duration.ofSeconds(60), 0.85);
}
