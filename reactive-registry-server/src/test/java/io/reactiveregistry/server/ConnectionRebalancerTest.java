package io.reactiveregistry.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rule that decides how many of a member's clients should move to bring it to its share. */
class ConnectionRebalancerTest {
  @Test
  void aMemberAboveItsShareByMoreThanTheToleranceMovesDownToItsShare() {
    assertThat(ConnectionRebalancer.excess(300, new int[] {0, 0}, 0.1)).isEqualTo(200);
    assertThat(ConnectionRebalancer.excess(150, new int[] {100, 50}, 0.1)).isEqualTo(50);
  }

  @Test
  void withinTheToleranceOrTheSlackNothingMoves() {
    assertThat(ConnectionRebalancer.excess(109, new int[] {100, 91}, 0.1)).as("9 % above").isZero();
    assertThat(ConnectionRebalancer.excess(4, new int[] {1, 1}, 0.1)).as("2 above a share of 2").isZero();
    assertThat(ConnectionRebalancer.excess(5, new int[] {1, 0}, 0.1)).as("3 above a share of 2").isEqualTo(3);
  }

  @Test
  void aMemberAtOrBelowItsShareNeverMoves() {
    assertThat(ConnectionRebalancer.excess(0, new int[] {150, 150}, 0.1)).isZero();
    assertThat(ConnectionRebalancer.excess(100, new int[] {100, 100}, 0)).isZero();
  }
}
