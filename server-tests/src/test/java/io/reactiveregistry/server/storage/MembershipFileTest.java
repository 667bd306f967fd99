package io.reactiveregistry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
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

  private ClusterConfig check(ClusterConfig cluster) throws Exception {
    return MembershipFile.check(dir, cluster, dir.resolve("group"));
  }

  @Test
  void theSameMemberStartsAgainAndAnyOtherIsRefusedSayingWhy() throws Exception {
    check(ClusterConfig.parse("n1", THREE));
    assertThatCode(() -> check(ClusterConfig.parse("n1", THREE))).doesNotThrowAnyException();

    assertThatThrownBy(() -> check(ClusterConfig.parse("n2", THREE)))
        .hasMessageContaining("belongs to member 'n1'").hasMessageContaining("not to member 'n2'");
    assertThatThrownBy(() -> check(ClusterConfig.parse("n2", THREE)))
        .hasMessageContaining("same --node-id as before");
    assertThatThrownBy(() -> check(ClusterConfig.single()))
        .hasMessageContaining("start it with --node-id n1 --members " + THREE);
  }

  @Test
  void aMemberStartsWithTheMembershipItsGroupLastCommittedWhateverMembersSays() throws Exception {
    check(ClusterConfig.parse("n1", THREE));
    String four = THREE + ",n4=127.0.0.1:7370/7390";
    MembershipFile.write(dir, ClusterConfig.parse("n1", four)); // n4 was added online

    assertThat(check(ClusterConfig.parse("n1", THREE)).toString()).isEqualTo(four);
    assertThat(Files.readString(dir.resolve(MembershipFile.NAME))).contains("n4\\=127.0.0.1\\:7370/7390");
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
