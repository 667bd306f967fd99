package io.reactiveregistry.protocol;

import java.time.Duration;

/**
 * The histogram buckets of every latency the server and the Java client measure, chosen for a
 * registry: a request served from memory takes tens of microseconds, a Raft commit milliseconds,
 * a slow push or a partition seconds. One list for both, fixed, so that the {@code _bucket} series
 * of every member and every client add up ({@code histogram_quantile} over a fleet). 20 ms sits
 * between 10 and 25 because it is the push target (a change reaching its subscribers within 20 ms):
 * with a bucket at the target, whether a p99 meets it is read off the series, not interpolated.
 */
public final class LatencyBuckets {
  private LatencyBuckets() {}

  /** 25 µs to 5 s. */
  public static Duration[] all() {
    return new Duration[] {
        Duration.ofNanos(25_000), Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000),
        Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5),
        Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
        Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2_500),
        Duration.ofSeconds(5)};
  }
}
