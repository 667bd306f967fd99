package io.reactiveregistry.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The server's push latency over a run, from two scrapes of its histogram. */
class ServerPushLatencyTest {
  private static String scrape(long under1ms, long under10ms, long under25ms, long all) {
    return "# HELP registry_push_latency_seconds from a change ...\n"
        + "registry_push_latency_seconds_bucket{le=\"0.001\"} " + under1ms + ".0\n"
        + "registry_push_latency_seconds_bucket{le=\"0.01\"} " + under10ms + ".0\n"
        + "registry_push_latency_seconds_bucket{le=\"0.025\"} " + under25ms + ".0\n"
        + "registry_push_latency_seconds_bucket{le=\"+Inf\"} " + all + ".0\n"
        + "registry_push_latency_seconds_count " + all + ".0\n"
        + "registry_request_seconds_bucket{le=\"0.001\",route=\"instance.register\"} 99.0\n";
  }

  @Test
  void onlyTheRunsPushesAreCountedAndTheQuantilesFallInTheirBuckets() {
    // Before the run: 100 pushes, all slow. The run adds 1,000: 500 under 1 ms, 490 more under
    // 10 ms, 10 more under 25 ms.
    var before = ServerPushLatency.parse(scrape(0, 0, 0, 100));
    var after = ServerPushLatency.parse(scrape(500, 990, 1000, 1100));

    ServerPushLatency run = ServerPushLatency.between(before, after);

    assertThat(run.events()).isEqualTo(1000);
    assertThat(run.p50Ms()).isCloseTo(1.0, within(1e-9)); // the 500th push: the top of the first bucket
    assertThat(run.p99BucketMs()).isEqualTo(10.0); // the 990th: the 10 ms bucket holds it
    assertThat(run.p99Ms()).isCloseTo(10.0, within(1e-9));
  }

  @Test
  void aTailBeyondTheLastBoundIsReportedAtThatBound() {
    ServerPushLatency run = ServerPushLatency.between(ServerPushLatency.parse(scrape(0, 0, 0, 0)),
        ServerPushLatency.parse(scrape(0, 0, 90, 100)));

    assertThat(run.p99Ms()).isEqualTo(25.0);
    assertThat(run.p99BucketMs()).isInfinite();
  }

  @Test
  void aServerWithoutTheHistogramOrWithoutPushesGivesNothing() {
    assertThat(ServerPushLatency.parse("{\"ok\":true}")).isNull();
    assertThat(ServerPushLatency.between(null, ServerPushLatency.parse(scrape(1, 1, 1, 1)))).isNull();
    assertThat(ServerPushLatency.between(ServerPushLatency.parse(scrape(1, 2, 3, 4)),
        ServerPushLatency.parse(scrape(1, 2, 3, 4)))).isNull();
  }
}
