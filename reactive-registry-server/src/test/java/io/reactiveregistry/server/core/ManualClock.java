package io.reactiveregistry.server.core;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * Virtual time for the core: it moves only when a test moves it. Read by a server's threads too
 * when an end-to-end test starts one with it, so its time is volatile.
 */
public final class ManualClock implements InstantSource {
  private volatile long millis;

  public ManualClock(long startMillis) {
    this.millis = startMillis;
  }

  public synchronized void advance(Duration duration) {
    millis += duration.toMillis();
  }

  public synchronized void advanceMillis(long value) {
    millis += value;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }
}
