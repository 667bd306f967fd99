package io.reactiveregistry.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading --node-id and --members: a readable list, and a refusal naming the rule for each mistake. */
class ClusterConfigTest {
  static final String THREE = "n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290";

  @Test
  void membersAreIdHostPortAndRaftPort() {
    ClusterConfig config = ClusterConfig.parse("n2", THREE);
    assertThat(config.clustered()).isTrue();
    assertThat(config.self()).isEqualTo(new ClusterConfig.Member("n2", "127.0.0.1", 7170, 7190));
    assertThat(config.self().raftAddress()).isEqualTo("127.0.0.1:7190");
    assertThat(config.toString()).isEqualTo(THREE);
    assertThat(ClusterConfig.parse("a", "a=[::1]:7070/7090").self().raftAddress()).isEqualTo("[::1]:7090");
  }

  @Test
  void withoutMembersTheServerIsASingleNode() {
    assertThat(ClusterConfig.parse(null, null).clustered()).isFalse();
    assertThat(ClusterConfig.parse(null, " ").clustered()).isFalse();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "n1 | | --node-id needs --members",
      " | n1=127.0.0.1:7070/7090 | --members needs --node-id",
      "n4 | " + THREE + " | --node-id 'n4' is not one of the members",
      "n1 | n1=127.0.0.1:7070 | must be id=host:port/raftPort",
      "n1 | n1=127.0.0.1:7070/7090,n1=127.0.0.1:7170/7190 | names member 'n1' twice",
      "n1 | n1=127.0.0.1:7070/7090,n2=127.0.0.1:7070/7190 | uses a port another member",
      "n1 | n1=127.0.0.1:7070/7070 | uses a port another member (or its own other port)",
      "n1 | n1=127.0.0.1:70700/7090 | has port 70700; a port is from 1 to 65535",
      "-x | -x=127.0.0.1:7070/7090 | member id '-x' must be 1-64 letters",
  })
  void mistakesAreRefusedNamingTheRule(String nodeId, String members, String message) {
    assertThatThrownBy(() -> ClusterConfig.parse(nodeId, members))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
  }
}
