package io.reactiveregistry.loadtest.metrics;

/** The summary of one request name over a whole run; latencies in microseconds. */
public record RequestStats(
    String name, long count, long ok, long ko, long minUs, long p50Us, long p75Us, long p95Us, long p99Us,
    long maxUs, double meanUs, double meanRatePerSec) {

  public double errorPercent() {
    return count == 0 ? 0 : 100.0 * ko / count;
  }
}
