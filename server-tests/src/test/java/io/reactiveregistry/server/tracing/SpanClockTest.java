package io.reactiveregistry.server.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.common.Clock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Spans' epoch times: in the order of their readings while the wall clock is slewed, following it after a step. */
class SpanClockTest {
  /** A wall clock and a monotonic clock the test moves. */
  static final class ManualClock implements Clock {
    long wallNanos = TimeUnit.SECONDS.toNanos(1_800_000_000L);
    long monotonic = 5_000_000_000L;

    void advance(long millis) {
      wallNanos += TimeUnit.MILLISECONDS.toNanos(millis);
      monotonic += TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Override
    public long now() {
      return wallNanos;
    }

    @Override
    public long nanoTime() {
      return monotonic;
    }
  }

  @Test
  void aLaterReadingIsALaterTimeThoughTheWallClockWasSlewedBackBetweenTheConversions() {
    ManualClock clock = new ManualClock();
    SpanClock spans = new SpanClock(clock);
    long requestStarted = clock.nanoTime();
    clock.advance(2);
    long request = spans.epochOf(requestStarted);
    clock.advance(1);
    long pushCreated = clock.nanoTime();
    clock.wallNanos -= TimeUnit.MILLISECONDS.toNanos(13); // slewed back, as on a loaded machine
    clock.advance(1);
    long push = spans.epochOf(pushCreated);

    assertThat(push - request).isEqualTo(pushCreated - requestStarted);
    assertThat(spans.now()).isGreaterThan(push);
  }

  @Test
  void afterAStepOfTheWallClockTheTimesFollowIt() {
    ManualClock clock = new ManualClock();
    SpanClock spans = new SpanClock(clock);
    clock.advance(10);
    assertThat(spans.now()).isEqualTo(clock.now());

    clock.wallNanos += TimeUnit.SECONDS.toNanos(30); // stepped forward: time set by an operator or NTP
    assertThat(spans.now()).isEqualTo(clock.now());
    clock.advance(5);
    assertThat(spans.now()).isEqualTo(clock.now());
  }
}
