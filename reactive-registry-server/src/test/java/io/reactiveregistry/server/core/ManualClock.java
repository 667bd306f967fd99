package io.reactiveregistry.server.core;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** Virtual time for the core: it moves only when a test moves it. */
public final class ManualClock implements InstantSource {
  private long millis;

  public ManualClock(long startMillis) {
    this.millis = startMillis;
  }

  public void advance(Duration duration) {
    millis += duration.toMillis();
  }

  public void advanceMillis(long value) {
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
