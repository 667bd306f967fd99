package io.reactiveregistry.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rule that decides how many of a member's clients should move to bring it to its share. */
class ConnectionRebalancerTest {
  @Test
  void aRoundsMovesGoToTheMembersBelowTheirShareByWhatEachLacks() {
    // Fresh counts: each gets what it lacks, within the round's budget.
    assertThat(ConnectionRebalancer.split(20, new double[] {10, 10})).containsExactly(10, 10);
    assertThat(ConnectionRebalancer.split(20, new double[] {8, 2})).containsExactly(8, 2);
    // A round's budget short of both deficits is shared, not spent on the first member alone.
    assertThat(ConnectionRebalancer.split(5, new double[] {10, 10})).containsExactly(3, 2);
    assertThat(ConnectionRebalancer.split(5, new double[] {10, 4})).containsExactly(5, 0);
    // Nobody is sent more than it lacks, even with budget left.
    assertThat(ConnectionRebalancer.split(50, new double[] {3.5, 0.5})).containsExactly(4, 1);
  }

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
  void aMemberAboveItsShareMovesWhileAnotherIsShortOfItsOwnByMoreThanTheSlack() {
    assertThat(ConnectionRebalancer.excess(12, new int[] {12, 6}, 0.1)).as("12, 12, 6").isEqualTo(2);
    assertThat(ConnectionRebalancer.excess(11, new int[] {11, 8}, 0.1)).as("the short one within the slack").isZero();
    assertThat(ConnectionRebalancer.excess(10, new int[] {14, 6}, 0.1)).as("this one at its share").isZero();
  }

  @Test
  void aMemberAtOrBelowItsShareNeverMoves() {
    assertThat(ConnectionRebalancer.excess(0, new int[] {150, 150}, 0.1)).isZero();
    assertThat(ConnectionRebalancer.excess(100, new int[] {100, 100}, 0)).isZero();
  }
}
