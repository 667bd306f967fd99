package io.reactiveregistry.server.push;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How often a subscriber that asked to coalesce is written to: at most one frame per {@code
 * window}. The first change after a quiet spell goes at once; the changes that follow it within
 * the window wait for its end and go together, as one {@code BATCH}. A storm of changes (a fleet
 * registering again after a restart) then costs each subscriber one frame per window instead of
 * one per change — without it, a thousand registrations watched by a thousand clients are a
 * million frames.
 *
 * @param window the least time between two frames to one coalescing subscriber; zero: no pacing
 * @param nanoTime the clock the window is measured on (virtual in tests)
 */
public record Pacing(Duration window, LongSupplier nanoTime) {
  /** No pacing: every drain runs as soon as it is asked for. */
  public static final Pacing NONE = new Pacing(Duration.ZERO, System::nanoTime);

  public Pacing {
    if (window.isNegative()) {
      throw new IllegalArgumentException("the coalescing window must not be negative: " + window);
    }
  }

  public static Pacing of(Duration window) {
    return new Pacing(window, System::nanoTime);
  }

  long now() {
    return nanoTime.getAsLong();
  }

  /** How long a drain asked for now waits, when the last frame went at {@code lastFrameNanos}. */
  long delayAfter(long lastFrameNanos) {
    return Math.max(0, lastFrameNanos + window.toNanos() - now());
  }

  boolean paces() {
    return !window.isZero();
  }
}
