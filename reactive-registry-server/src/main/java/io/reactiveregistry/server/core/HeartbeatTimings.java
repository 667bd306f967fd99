package io.reactiveregistry.server.core;

import java.util.Map;

/**
 * When an ephemeral instance is expected to heartbeat, when it turns unhealthy without one, and
 * when it is removed. Each deadline is stored once, as an offset from the last heartbeat.
 */
public record HeartbeatTimings(long intervalMs, long timeoutMs, long deleteTimeoutMs) {
  public static final String INTERVAL_KEY = "preserved.heart.beat.interval";
  public static final String TIMEOUT_KEY = "preserved.heart.beat.timeout";
  public static final String DELETE_TIMEOUT_KEY = "preserved.ip.delete.timeout";

  /** The contract's defaults: 5 s, 15 s, 30 s. */
  public static final HeartbeatTimings DEFAULTS = new HeartbeatTimings(5_000, 15_000, 30_000);

  public HeartbeatTimings {
    if (intervalMs <= 0 || timeoutMs < intervalMs || deleteTimeoutMs < intervalMs) {
      throw new IllegalArgumentException("timings must be positive and no timeout below the interval: "
          + intervalMs + "/" + timeoutMs + "/" + deleteTimeoutMs);
    }
  }

  /**
   * The timings an instance asks for through its metadata, falling back to {@code defaults}.
   * Returns {@code defaults} itself when nothing is overridden, so instances share one object.
   */
  public static HeartbeatTimings from(Map<String, String> metadata, HeartbeatTimings defaults) {
    String interval = metadata.get(INTERVAL_KEY);
    String timeout = metadata.get(TIMEOUT_KEY);
    String delete = metadata.get(DELETE_TIMEOUT_KEY);
    if (interval == null && timeout == null && delete == null) {
      return defaults;
    }
    long i = interval == null ? defaults.intervalMs : millis(INTERVAL_KEY, interval);
    long t = timeout == null ? defaults.timeoutMs : millis(TIMEOUT_KEY, timeout);
    long d = delete == null ? defaults.deleteTimeoutMs : millis(DELETE_TIMEOUT_KEY, delete);
    if (t < i) {
      throw RegistryException.invalid("metadata '" + TIMEOUT_KEY + "' (" + t
          + " ms) must not be below the heartbeat interval (" + i + " ms)");
    }
    if (d < i) {
      throw RegistryException.invalid("metadata '" + DELETE_TIMEOUT_KEY + "' (" + d
          + " ms) must not be below the heartbeat interval (" + i + " ms)");
    }
    return new HeartbeatTimings(i, t, d);
  }

  private static long millis(String key, String value) {
    boolean digits = !value.isEmpty() && value.length() <= 15 && value.chars().allMatch(c -> c >= '0' && c <= '9');
    long parsed = digits ? Long.parseLong(value) : 0;
    if (parsed <= 0) {
      throw RegistryException.invalid("metadata '" + key + "' must be a positive whole number of milliseconds (got '"
          + value + "')");
    }
    return parsed;
  }
}
