package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.Supplier;

/** A read that must answer at once, not after a timeout: what an outage's tests assert of clients. */
public final class AtOnce {
  private AtOnce() {}

  /**
   * What {@code read} returns, once it has answered within 100 ms in one of three tries (a wait for
   * a request timeout takes seconds every time; a machine busy with other tests may delay one try).
   */
  public static <T> T answer(Supplier<T> read) {
    long best = Long.MAX_VALUE;
    T answer = null;
    for (int attempt = 0; attempt < 3 && best > Duration.ofMillis(100).toNanos(); attempt++) {
      long start = System.nanoTime();
      answer = read.get();
      best = Math.min(best, System.nanoTime() - start);
    }
    assertThat(Duration.ofNanos(best)).as("the quickest of up to three answers").isLessThan(Duration.ofMillis(100));
    return answer;
  }
}
