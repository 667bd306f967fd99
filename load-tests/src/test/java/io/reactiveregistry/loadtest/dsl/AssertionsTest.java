package io.reactiveregistry.loadtest.dsl;

import static io.reactiveregistry.loadtest.dsl.Assertion.count;
import static io.reactiveregistry.loadtest.dsl.Assertion.errorPercent;
import static io.reactiveregistry.loadtest.dsl.Assertion.failedCount;
import static io.reactiveregistry.loadtest.dsl.Assertion.maxResponseTime;
import static io.reactiveregistry.loadtest.dsl.Assertion.meanResponseTime;
import static io.reactiveregistry.loadtest.dsl.Assertion.percentile;
import static io.reactiveregistry.loadtest.dsl.Assertion.stdDevResponseTime;
import static io.reactiveregistry.loadtest.dsl.Assertion.throughput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.loadtest.metrics.Metrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Every assertion kind on a run with known figures: 1,000 successful "register" of 1 µs to 1 ms
 * (one of each microsecond), 10 failed, 100 "query" of 5 ms. Each kind can pass and can fail.
 */
class AssertionsTest {
  private final Metrics metrics = new Metrics();

  AssertionsTest() {
    long t0 = metrics.startNanos();
    for (int micros = 1; micros <= 1_000; micros++) {
      metrics.record("register", t0, t0 + micros * 1_000L, true);
    }
    for (int i = 0; i < 10; i++) {
      metrics.record("register", t0, t0 + 1_000, false);
    }
    for (int i = 0; i < 100; i++) {
      metrics.record("query", t0, t0 + 5_000_000, true);
    }
  }

  private boolean passes(Assertion assertion) {
    return assertion.evaluate(metrics.stats(), null, metrics).passed();
  }

  private static Duration micros(long value) {
    return Duration.ofNanos(value * 1_000);
  }

  @Test
  void anyPercentileIsReadOffTheHistogramNotRoundedToAStoredOne() {
    // p99.9 of 1..1000 µs is 999 µs; the summary stores only p50/75/95/99 (990 µs) and max.
    assertThat(passes(percentile("register", 99.9).lessThan(micros(1_000)))).isTrue();
    assertThat(passes(percentile("register", 99.9).lessThan(micros(999)))).isFalse();
    assertThat(percentile("register", 99.9).lessThan(micros(999)).evaluate(metrics.stats(), null, metrics).actual())
        .isEqualTo("0.999 ms");
    assertThat(passes(percentile("register", 12.5).lessThan(micros(126)))).isTrue();
    assertThat(passes(percentile("register", 12.5).lessThan(micros(125)))).isFalse();
    // "*": every request, 1,100 of them: p95 is among the queries' 5 ms.
    assertThat(passes(percentile("*", 95).lessThan(Duration.ofMillis(5)))).isFalse();
    assertThat(passes(percentile("*", 90).lessThan(Duration.ofMillis(1)))).isTrue();
    assertThatThrownBy(() -> percentile("register", 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void meanStandardDeviationAndMax() {
    assertThat(passes(meanResponseTime("register").lessThan(micros(501)))).isTrue();
    assertThat(passes(meanResponseTime("register").lessThan(micros(500)))).isFalse();
    assertThat(passes(stdDevResponseTime("register").lessThan(micros(290)))).isTrue();
    assertThat(passes(stdDevResponseTime("register").lessThan(micros(288)))).isFalse();
    assertThat(passes(maxResponseTime("register").lessThan(micros(1_001)))).isTrue();
    assertThat(passes(maxResponseTime("register").lessThan(micros(1_000)))).isFalse();
    assertThat(passes(maxResponseTime("nothing").lessThan(micros(1)))).isFalse();
  }

  @Test
  void failuresThroughputAndCounts() {
    assertThat(passes(failedCount("register").atMost(10))).isTrue();
    assertThat(passes(failedCount("register").atMost(9))).isFalse();
    assertThat(passes(failedCount("query").atMost(0))).isTrue();
    assertThat(passes(errorPercent("register").lessThan(1))).isTrue();
    assertThat(passes(errorPercent("register").lessThan(0.9))).isFalse();
    assertThat(passes(count("register").atLeast(1_000))).isTrue();
    assertThat(passes(count("register").atLeast(1_001))).isFalse();
    double rate = metrics.stats().stream().filter(s -> s.name().equals("query")).findFirst().orElseThrow()
        .meanRatePerSec();
    assertThat(passes(throughput("query").greaterThan(rate - 1))).isTrue();
    assertThat(passes(throughput("query").greaterThan(rate + 1))).isFalse();
  }
}
