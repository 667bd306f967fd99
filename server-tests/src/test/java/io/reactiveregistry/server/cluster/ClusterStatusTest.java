package io.reactiveregistry.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.cluster.ClusterStatus.MemberStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A single server's status names it as server.info does, not by its Raft peer's fixed name. */
class ClusterStatusTest {
  @Test
  void callingSelfRenamesThisNodeWhereverItAppears() {
    ClusterStatus raft = new ClusterStatus("registry-1", "leader", "registry-1", 1, 7, 7,
        List.of(new MemberStatus("registry-1", null, "127.0.0.1:7090", "leader", 7)));

    ClusterStatus named = raft.callingSelf("5f0c");

    assertThat(named.nodeId()).isEqualTo("5f0c");
    assertThat(named.leader()).isEqualTo("5f0c");
    assertThat(named.leading()).isTrue();
    assertThat(named.members()).extracting(MemberStatus::id).containsExactly("5f0c");
    assertThat(named.callingSelf("5f0c")).isSameAs(named);
  }
}
