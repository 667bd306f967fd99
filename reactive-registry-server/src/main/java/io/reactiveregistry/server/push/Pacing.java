package io.reactiveregistry.server.push;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * How often a subscriber that asked to coalesce is written to: at most one frame per window. The
 * first change after a quiet spell goes at once; the changes that follow it within the window
 * wait for its end and go together, as one {@code BATCH}. A storm of changes (a fleet registering
 * again after a restart) then costs each subscriber one frame per window instead of one per change
 * — without it, a thousand registrations watched by a thousand clients are a million frames.
 *
 * <p>The window widens with the number of coalescing subscribers, so that all of them together
 * are sent at most {@link Settings#framesPerSecond} frames a second: with a fixed window the
 * frames of a storm grow with the subscribers, and past a few thousand of them writing their
 * batches takes every core, the registrations the storm is made of wait behind the frames that
 * report them, and the storm lasts ten times longer (5,000 clients: 48–67 s, RESULTS.md). At the
 * default budget (20,000 a second) up to 1,000 subscribers keep the 50 ms window; 5,000 have
 * 250 ms. A lone change still goes at once.
 */
public final class Pacing {
  /**
   * @param window the least time between two frames to one coalescing subscriber; zero: no pacing
   * @param framesPerSecond the most frames all coalescing subscribers together are paced to a
   *     second, by widening the window; zero: the window alone
   */
  public record Settings(Duration window, int framesPerSecond) {
    public static final Settings DEFAULTS = new Settings(Duration.ofMillis(50), 20_000);

    public Settings {
      if (window.isNegative()) {
        throw new IllegalArgumentException("the coalescing window must not be negative: " + window);
      }
      if (framesPerSecond < 0) {
        throw new IllegalArgumentException("the coalesced frames per second must not be negative: " + framesPerSecond);
      }
    }

    public Settings withWindow(Duration value) {
      return new Settings(value, framesPerSecond);
    }
  }

  /** No pacing: every drain runs as soon as it is asked for. */
  public static final Pacing NONE = new Pacing(new Settings(Duration.ZERO, 0), System::nanoTime);

  private final long windowNanos;
  private final int framesPerSecond;
  private final LongSupplier nanoTime;
  /** Subscribers paced by this: the budget is shared among them. */
  private final AtomicInteger coalescing = new AtomicInteger();

  /** @param nanoTime the clock the window is measured on (virtual in tests) */
  public Pacing(Settings settings, LongSupplier nanoTime) {
    this.windowNanos = settings.window().toNanos();
    this.framesPerSecond = settings.framesPerSecond();
    this.nanoTime = nanoTime;
  }

  /** A fixed window, whatever the number of subscribers. */
  public Pacing(Duration window, LongSupplier nanoTime) {
    this(new Settings(window, 0), nanoTime);
  }

  public static Pacing of(Settings settings) {
    return new Pacing(settings, System::nanoTime);
  }

  /** A coalescing subscriber came; it shares the budget from now (counted only where there is one). */
  void joined() {
    if (framesPerSecond > 0) {
      coalescing.incrementAndGet();
    }
  }

  /** A coalescing subscriber went. */
  void left() {
    if (framesPerSecond > 0) {
      coalescing.decrementAndGet();
    }
  }

  long now() {
    return nanoTime.getAsLong();
  }

  /** The window now: the configured one, or longer when that many subscribers would pass the budget. */
  long windowNanos() {
    if (framesPerSecond == 0) {
      return windowNanos;
    }
    return Math.max(windowNanos, coalescing.get() * 1_000_000_000L / framesPerSecond);
  }

  /** How long a drain asked for now waits, when the last frame went at {@code lastFrameNanos}. */
  long delayAfter(long lastFrameNanos) {
    return Math.max(0, lastFrameNanos + windowNanos() - now());
  }

  boolean paces() {
    return windowNanos > 0;
  }
}
