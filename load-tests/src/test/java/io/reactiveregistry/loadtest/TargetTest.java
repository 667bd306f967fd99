package io.reactiveregistry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.loadtest.engine.Target;
import io.reactiveregistry.loadtest.engine.Target.Endpoint;
import org.junit.jupiter.api.Test;

/** A target of several addresses: a cluster's members, over which virtual users are spread. */
class TargetTest {
  @Test
  void severalAddressesAreReadInOrder() {
    Target target = Target.parse("tcp://127.0.0.1:7070, tcp://127.0.0.1:7170,tcp://127.0.0.1:7270");
    assertThat(target.endpoints()).containsExactly(new Endpoint("127.0.0.1", 7070), new Endpoint("127.0.0.1", 7170),
        new Endpoint("127.0.0.1", 7270));
    assertThat(target).hasToString("tcp://127.0.0.1:7070,tcp://127.0.0.1:7170,tcp://127.0.0.1:7270");
    assertThat(target.withToken("secret").toString()).doesNotContain("secret");
  }

  @Test
  void aTargetIsAllTcpOrAllTls() {
    assertThatThrownBy(() -> Target.parse("tcp://127.0.0.1:7070,tls://127.0.0.1:7170"))
        .hasMessageContaining("all tcp:// or all tls://");
    assertThatThrownBy(() -> Target.parse("http://127.0.0.1:7070")).hasMessageContaining("tcp://127.0.0.1:7070");
  }

  @Test
  void usersKeptOffOneMemberGoToTheOthersInTurn() {
    Target target = Target.parse("tcp://127.0.0.1:7070,tcp://127.0.0.1:7170,tcp://127.0.0.1:7270");
    assertThat(java.util.stream.IntStream.range(0, 6).map(user -> target.avoiding(0, user)))
        .containsExactly(1, 2, 1, 2, 1, 2);
    assertThat(java.util.stream.IntStream.range(0, 4).map(user -> target.avoiding(2, user)))
        .containsExactly(0, 1, 0, 1);
    assertThatThrownBy(() -> Target.parse("tcp://127.0.0.1:7070").avoiding(0, 1))
        .hasMessageContaining("second address");
  }
}
