package io.reactiveregistry.server.core;

/**
 * Heartbeats expected and received over a sliding window, in one-second buckets, for
 * self-preservation. Each live ephemeral instance is expected to send {@code 1000 / interval}
 * heartbeats a second; a registration counts as a heartbeat, so a fresh instance is not counted
 * as silent before its first interval has passed.
 */
final class HeartbeatAccounting {
  /** Fewer expected heartbeats than this in a window is too little to judge by. */
  private static final double MIN_EXPECTED = 20;
  /**
   * Below this many instances a silent one is a large share of the fleet, and a partition cannot
   * be told from a crash: self-preservation would only keep dead instances forever.
   */
  static final int MIN_INSTANCES = 10;

  private final double[] expected;
  private final long[] received;
  private long currentSecond = Long.MIN_VALUE;
  private long accruedUntil = Long.MIN_VALUE;
  private double expectedPerSecond;
  private int instances;

  HeartbeatAccounting(int windowSeconds) {
    this.expected = new double[windowSeconds];
    this.received = new long[windowSeconds];
  }

  void instanceAdded(HeartbeatTimings timings) {
    expectedPerSecond += 1000.0 / timings.intervalMs();
    instances++;
  }

  void instanceRemoved(HeartbeatTimings timings) {
    expectedPerSecond = Math.max(0, expectedPerSecond - 1000.0 / timings.intervalMs());
    instances = Math.max(0, instances - 1);
  }

  void received(long now, int count) {
    roll(now);
    received[slot(currentSecond)] += count;
  }

  /** Adds what was expected since the last call. */
  void accrue(long now) {
    roll(now);
    if (accruedUntil != Long.MIN_VALUE && now > accruedUntil) {
      expected[slot(currentSecond)] += expectedPerSecond * (now - accruedUntil) / 1000.0;
    }
    accruedUntil = now;
  }

  /** What was expected since the last call is not counted: the server did not run to receive it. */
  void skip(long now) {
    roll(now);
    accruedUntil = now;
  }

  /**
   * The share of expected heartbeats that arrived in the window, or 1 when there is too little to
   * tell (too few heartbeats expected, or too few instances).
   */
  double ratio(long now) {
    Window window = window(now);
    return !window.judged() ? 1.0 : window.received() / window.expected();
  }

  /** Expected and received over the window, per minute, and whether that is enough to judge by. */
  HeartbeatFigures figures(long now, double threshold, boolean enabled) {
    Window window = window(now);
    double perMinute = 60.0 / expected.length;
    return new HeartbeatFigures(window.expected() * perMinute, window.received() * perMinute, threshold,
        window.judged(), enabled);
  }

  /** The window's sums; {@code judged}: enough instances and expected heartbeats to tell by. */
  private record Window(double expected, long received, boolean judged) {}

  private Window window(long now) {
    roll(now);
    double expectedSum = 0;
    long receivedSum = 0;
    for (int i = 0; i < expected.length; i++) {
      expectedSum += expected[i];
      receivedSum += received[i];
    }
    return new Window(expectedSum, receivedSum, expectedSum >= MIN_EXPECTED && instances >= MIN_INSTANCES);
  }

  private void roll(long now) {
    long second = Math.floorDiv(now, 1000);
    if (currentSecond == Long.MIN_VALUE || second - currentSecond >= expected.length) {
      java.util.Arrays.fill(expected, 0);
      java.util.Arrays.fill(received, 0);
    } else {
      for (long s = currentSecond + 1; s <= second; s++) {
        expected[slot(s)] = 0;
        received[slot(s)] = 0;
      }
    }
    currentSecond = Math.max(second, currentSecond); // a clock that steps back never rewinds the window
  }

  private int slot(long second) {
    return (int) Math.floorMod(second, (long) expected.length);
  }
}
