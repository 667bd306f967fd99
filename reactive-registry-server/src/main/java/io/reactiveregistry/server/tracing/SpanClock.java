package io.reactiveregistry.server.tracing;

import io.opentelemetry.sdk.common.Clock;
import java.util.concurrent.TimeUnit;

/**
 * Epoch times for the spans, from {@link System#nanoTime()} readings and one anchor on the wall
 * clock. Converting each span's reading with a wall-clock read of its own let two spans of one
 * trace swap order when the wall clock was slewed between them (a push span started 13 ms before
 * its request's span on a loaded machine); with one anchor, the spans' order is the order of
 * their readings. The anchor is taken again only when the wall clock has moved more than
 * {@value #STEP_MILLIS} ms away from it (a step), so that the spans' times follow the wall clock
 * over a long uptime; only a span pair straddling such a step can be out of order.
 */
final class SpanClock {
  static final long STEP_MILLIS = 1_000;

  private record Anchor(long epochNanos, long nanoTime) {
    long epochOf(long nanos) {
      return epochNanos + (nanos - nanoTime);
    }
  }

  private final Clock clock;
  private volatile Anchor anchor;

  SpanClock(Clock clock) {
    this.clock = clock;
    this.anchor = new Anchor(clock.now(), clock.nanoTime());
  }

  /** The epoch time, in nanoseconds, of the reading {@code nanos} of the clock's {@code nanoTime()}. */
  long epochOf(long nanos) {
    long wall = clock.now();
    long reading = clock.nanoTime();
    Anchor current = anchor;
    if (Math.abs(wall - current.epochOf(reading)) > TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS)) {
      current = new Anchor(wall, reading);
      anchor = current;
    }
    return current.epochOf(nanos);
  }

  /** Now, in epoch nanoseconds. */
  long now() {
    return epochOf(clock.nanoTime());
  }
}
