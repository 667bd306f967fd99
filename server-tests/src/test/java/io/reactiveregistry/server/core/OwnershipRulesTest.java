package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import io.reactiveregistry.server.core.OwnershipRules.Registration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pure decisions of ownership, as tables. */
class OwnershipRulesTest {
  private static final Owner alice = new Owner(1, "alice");
  private static final Owner bob = new Owner(2, "bob");

  private static Owner owner(String name) {
    return switch (name) {
      case "alice" -> alice;
      case "bob" -> bob;
      default -> null;
    };
  }

  @ParameterizedTest(name = "ephemeral={0}, exists={1}, owned by {2}, alice registers: {3}, alice owns one more: {4}")
  @CsvSource({
      // ephemeral, exists, owner, is,        adds to alice
      "true,        false,  none,  NEW,       true",
      "true,        true,   alice, UPDATE,    false",
      "true,        true,   bob,   TAKE_OVER, true",
      "true,        true,   none,  TAKE_OVER, true", // an ephemeral instance without owner (only inside a release)
      "false,       false,  none,  NEW,       false",
      "false,       true,   none,  UPDATE,    false",
  })
  void whatARegistrationIsToTheInstanceItNames(boolean ephemeral, boolean exists, String owner,
      Registration expected, boolean addsToAlice) {
    Registration registration = OwnershipRules.registration(ephemeral, exists, owner(owner), alice);

    assertThat(registration).isEqualTo(expected);
    assertThat(registration.addsToCaller(ephemeral)).isEqualTo(addsToAlice);
  }

  @ParameterizedTest(name = "persistent={0}, exists={1}, owned by caller={2}, by a peer={3}, deregistered by caller={4}: {5}")
  @CsvSource({
      // persistent, exists, owned, peer's, deregistered, outcome
      "false,        true,   true,  false,  false,        REFRESHED",
      "false,        true,   false, false,  false,        IGNORED_NOT_OWNER",
      "false,        true,   false, true,   false,        IGNORED_OTHER_NODE",
      "false,        false,  false, false,  false,        RECREATED",
      "false,        false,  false, false,  true,         IGNORED_DEREGISTERED",
      "true,         true,   false, false,  false,        IGNORED_PERSISTENT",
      "true,         true,   false, true,   false,        IGNORED_PERSISTENT",
      "true,         false,  false, false,  false,        IGNORED_PERSISTENT",
      "true,         false,  false, false,  true,         IGNORED_PERSISTENT",
  })
  void whatAHeartbeatDoes(boolean persistent, boolean exists, boolean owned, boolean peers, boolean deregistered,
      HeartbeatOutcome expected) {
    assertThat(OwnershipRules.heartbeat(persistent, exists, owned, peers, deregistered)).isEqualTo(expected);
  }
}
