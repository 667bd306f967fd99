package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.replication.Replication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client given the address of one member of a three-node cluster learns the others from it, and
 * when that member stops, fails over to another and registers again there: a watcher on a third
 * member sees the instance throughout.
 */
class ClusterFailoverTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final ServiceName DB = ServiceName.of("db");
  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir
  Path dir;

  @Test
  void aClientGivenOneMemberLearnsTheOthersAndFailsOverToThem() {
    TestCluster cluster = new TestCluster(dir);
    List<Integer> ports = cluster.ports;
    List<RegistryServer> nodes = TestCluster.start(i -> member(cluster, i));
    RegistryClient app = RegistryClient.builder().servers("tcp://127.0.0.1:" + ports.get(0)).clientName("app")
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)).build();
    RegistryClient watcher = RegistryClient.builder().servers("tcp://127.0.0.1:" + ports.get(2))
        .clientName("watcher").build();
    try {
      app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
      // A durable write acknowledged by n1 is in a consistent read on n3 at once, whoever leads.
      for (int i = 0; i < 5; i++) {
        app.register(DB, InstanceBody.of("127.0.0." + (10 + i), 5432, null, 1.0, Map.of()), false).block(WAIT);
        assertThat(watcher.queryConsistent(DB, Selection.all()).block(WAIT).instances()).hasSize(i + 1);
      }
      await().atMost(WAIT).untilAsserted(() -> assertThat(watcher.query(ORDERS).block(WAIT).instances())
          .extracting(InstanceBody::ip).containsExactly("127.0.0.5"));

      nodes.get(0).disposeNow(Duration.ofSeconds(10)); // n1, the only member the app was given
      // Past n1's grace period on n3, the instance is there because the app registered it again elsewhere.
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(app.isConnected()).isTrue();
        int copiesOfN1 = nodes.get(2).runtime().read(reads -> reads.replicaCopies("n1"));
        assertThat(copiesOfN1).isZero();
        assertThat(watcher.query(ORDERS).block(WAIT).instances()).extracting(InstanceBody::ip)
            .containsExactly("127.0.0.5");
      });
    } finally {
      app.closeAndWait();
      watcher.closeAndWait();
      for (RegistryServer node : nodes.subList(1, 3)) {
        node.disposeNow(Duration.ofSeconds(10));
      }
    }
  }

  private static ServerConfig member(TestCluster cluster, int i) {
    return cluster.member(i, new HeartbeatTimings(100, 1_000, 2_000),
        new Replication.Settings(Duration.ofSeconds(1), Duration.ofMillis(500)));
  }
}
