package io.reactiveregistry.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/** The failed-authentication budget per address, on a clock the test moves. */
class FailedAuthenticationsTest {
  private Instant now = Instant.parse("2026-12-01T12:00:00Z");
  private final InstantSource clock = () -> now;
  private final FailedAuthentications failures = new FailedAuthentications(3, Duration.ofSeconds(60), clock);
  private final InetSocketAddress guesser = new InetSocketAddress("127.0.0.3", 40_000);
  private final InetSocketAddress sameHostOtherPort = new InetSocketAddress("127.0.0.3", 40_001);
  private final InetSocketAddress neighbour = new InetSocketAddress("127.0.0.4", 40_000);

  @Test
  void anAddressIsRefusedFromItsMaxthFailureUntilItsWindowEnds() {
    failures.failed(guesser);
    now = now.plusSeconds(10);
    failures.failed(guesser);
    assertThat(failures.blockedFor(guesser)).isZero();

    now = now.plusSeconds(10);
    failures.failed(sameHostOtherPort); // the third, from another connection of the same host

    assertThat(failures.blockedFor(guesser)).isEqualTo(Duration.ofSeconds(40));
    assertThat(failures.blockedFor(neighbour)).isZero();
    now = now.plusSeconds(39);
    assertThat(failures.blockedFor(guesser)).isEqualTo(Duration.ofSeconds(1));
    now = now.plusSeconds(1);
    assertThat(failures.blockedFor(guesser)).as("the window ended").isZero();

    failures.failed(guesser);
    assertThat(failures.blockedFor(guesser)).as("a new window, with one failure").isZero();
  }

  @Test
  void failuresSpreadOverWindowsNeverBlock() {
    for (int i = 0; i < 10; i++) {
      failures.failed(guesser);
      failures.failed(guesser);
      now = now.plusSeconds(61);
    }
    assertThat(failures.blockedFor(guesser)).isZero();
  }
}
