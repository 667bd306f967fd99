package io.reactiveregistry.server.storage;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.server.cluster.ClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A data directory belongs to one member of one cluster, or to a single server, for good. */
class MembershipFileTest {
  static final String THREE = "n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290";
  @TempDir
  Path dir;

  private void check(ClusterConfig cluster) throws Exception {
    MembershipFile.check(dir, cluster, dir.resolve("group"));
  }

  @Test
  void theSameMemberStartsAgainAndAnyOtherIsRefusedSayingWhy() throws Exception {
    check(ClusterConfig.parse("n1", THREE));
    assertThatCode(() -> check(ClusterConfig.parse("n1", THREE))).doesNotThrowAnyException();

    assertThatThrownBy(() -> check(ClusterConfig.parse("n2", THREE)))
        .hasMessageContaining("belongs to member 'n1'").hasMessageContaining("not to member 'n2'");
    assertThatThrownBy(() -> check(ClusterConfig.parse("n1", "n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190")))
        .hasMessageContaining("same --node-id and --members");
    assertThatThrownBy(() -> check(ClusterConfig.single()))
        .hasMessageContaining("start it with --node-id n1 --members " + THREE);
  }

  @Test
  void aSingleServersDirectoryIsNotTakenOverByAMember() throws Exception {
    check(ClusterConfig.single());
    Files.createDirectories(dir.resolve("group")); // what a single server's Ratis group leaves
    assertThatCode(() -> check(ClusterConfig.single())).doesNotThrowAnyException();
    assertThatThrownBy(() -> check(ClusterConfig.parse("n1", THREE)))
        .hasMessageContaining("holds a single server's durable state");
  }
}
