package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.storage.RatisStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member's Raft connections to its peers, ready before it stands for election. Ratis opens a
 * connection to a peer only when it first sends it something, and a follower sends nothing until
 * an election: opened then, in the middle of a planned stop's hand-over, they cost each vote
 * tens of milliseconds. Each member connects to every peer once it sees the peer up.
 *
 * <p>Leadership handed over right after a rolling restart, to the member that did not restart: its
 * peers are new runs, and it has sent them nothing since they restarted (a follower sends its
 * peers nothing until it stands for election). Its connections to them from before were closed by
 * their stops; unless it drops them when it sees the peers back, every vote it asks for fails on
 * them, nobody leads, and it is elected only in a second election after its timeout.
 */
@Tag("process") // a cluster and two restarts: left out by -Pquick like the process suites; run in CI
class HandOverAfterRestartsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  @Test
  void aMemberWhosePeersRestartedTakesLeadershipInOneElection() {
    TestCluster cluster = new TestCluster(dir);
    List<RegistryServer> nodes = new ArrayList<>(TestCluster.start(n -> member(cluster, n)));
    try {
      // n3 leads once, so that it holds Raft connections to both peers; then n1 leads.
      handOver(nodes, 3);
      handOver(nodes, 1);
      // n2 restarts; n1 hands over to n2 and restarts: both of n3's peers are new runs.
      restart(nodes, cluster, 2);
      // The restarted follower's Raft port has both peers connected: the leader's appender, and
      // n3, which has sent it nothing since (it closed its old connection, and opened a new one).
      int raftPort = cluster.ports.get(4);
      await().atMost(WAIT).untilAsserted(() -> assertThat(connectionsTo(raftPort))
          .as("established connections to n2's Raft port %d", raftPort).isGreaterThanOrEqualTo(2));
      handOver(nodes, 2);
      restart(nodes, cluster, 1);
      long term = storage(nodes, 3).status().term();

      handOver(nodes, 3);

      assertThat(storage(nodes, 3).status().term()).as("the term n3 leads in (one election: the next)")
          .isEqualTo(term + 1);
    } finally {
      for (RegistryServer node : nodes) {
        node.disposeNow(Duration.ofSeconds(10));
      }
    }
  }

  /** Established TCP connections to {@code port}, as this machine's kernel lists them. */
  private static long connectionsTo(int port) throws IOException {
    String remotePort = String.format(":%04X", port);
    long established = 0;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Path.of(table));
      for (String line : lines.subList(1, lines.size())) { // sl local_address rem_address st ...
        String[] fields = line.trim().split("\\s+");
        if (fields[2].endsWith(remotePort) && "01".equals(fields[3])) {
          established++;
        }
      }
    }
    return established;
  }

  private static ServerConfig member(TestCluster cluster, int n) {
    return cluster.member(n, new HeartbeatTimings(1_000, 5_000, 10_000),
        new Replication.Settings(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(5), 0, 0.1));
  }

  private static RatisStore storage(List<RegistryServer> nodes, int n) {
    return nodes.get(n - 1).storage().orElseThrow();
  }

  /**
   * The leader hands leadership to member {@code n} (the only one it may choose), as a planned stop
   * does; tried again until {@code n} is in step with the leader (right after a start it may not be).
   */
  private static void handOver(List<RegistryServer> nodes, int n) {
    String to = "n" + n;
    await().atMost(WAIT).until(() -> storage(nodes, n).leading() || nodes.stream()
        .map(node -> node.storage().orElseThrow()).filter(RatisStore::leading).findFirst()
        .map(leader -> to.equals(leader.handOffLeadership(Duration.ofSeconds(5), List.of(to)))).orElse(false));
    await().atMost(WAIT).until(() -> storage(nodes, n).leading());
  }

  /**
   * Member {@code n} stops (it does not lead) and starts again on its data; awaited until every
   * member follows every other's replication stream again, as a rolling restart does before the
   * next member.
   */
  private static void restart(List<RegistryServer> nodes, TestCluster cluster, int n) {
    nodes.get(n - 1).disposeNow(WAIT);
    nodes.set(n - 1, RegistryServer.start(member(cluster, n)).block(WAIT));
    await().atMost(WAIT).until(() -> nodes.stream().allMatch(node -> TestCluster.streamsFromAll(node.tcpPort())));
  }
}
