package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.e2e.WireClient;
import io.reactiveregistry.server.replication.Replication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * Clients that all connect to one member of three are spread over the three by the members
 * themselves: the crowded one asks the newest of its clients to move, a round at a time, until each
 * member holds its share within the tolerance; the moves release nothing, so a subscriber sees no
 * instance go.
 */
class RebalanceTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int APPS = 30;
  /** Each member's links to its two peers are connections too. */
  private static final int PEER_LINKS = 2;

  @TempDir
  Path dir;

  @Test
  void clientsCrowdedOnOneMemberAreSpreadOverAllWithoutAnInstanceGoing() {
    TestCluster cluster = new TestCluster(dir);
    List<Integer> ports = cluster.ports;
    List<RegistryServer> nodes = TestCluster.start(i -> member(cluster, i));
    List<RegistryClient> apps = new ArrayList<>();
    List<String> pushed = new CopyOnWriteArrayList<>();
    try (WireClient watcher = WireClient.connect(ports.get(1), "watcher")) {
      Disposable watch = watcher.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(pushed::add);
      for (int i = 0; i < APPS; i++) {
        RegistryClient app = RegistryClient.builder().servers("tcp://127.0.0.1:" + ports.get(0))
            .clientName("app-" + i).build();
        apps.add(app);
        app.register(ORDERS, InstanceBody.of("127.0.0.1", 9000 + i, null, 1.0, Map.of())).block(WAIT);
      }

      // 30 apps over three members: 10 each, within the tolerance (10 %) and the slack (2).
      await().atMost(WAIT).untilAsserted(() -> {
        int first = nodes.get(0).openConnections() - PEER_LINKS;
        int second = nodes.get(1).openConnections() - PEER_LINKS - 1; // and the watcher
        int third = nodes.get(2).openConnections() - PEER_LINKS;
        assertThat(first + second + third).isEqualTo(APPS);
        assertThat(List.of(first, second, third)).allSatisfy(held -> assertThat(held).isBetween(8, 12));
      });
      assertThat(apps).allMatch(RegistryClient::isConnected);
      assertThat(instancesOn(nodes.get(1))).isEqualTo(APPS);
      assertThat(pushed).noneMatch(frame -> frame.contains("\"REMOVE\""));
      watch.dispose();
    } finally {
      apps.forEach(RegistryClient::closeAndWait);
      for (RegistryServer node : nodes) {
        node.disposeNow(Duration.ofSeconds(10));
      }
    }
  }

  private static int instancesOn(RegistryServer node) {
    return node.runtime().read(reads -> reads.instanceRecords(ServiceKey.of(Protocol.DEFAULT_NAMESPACE,
        Protocol.DEFAULT_GROUP, "orders")).size());
  }

  private static ServerConfig member(TestCluster cluster, int i) {
    // Digests, which carry each member's count, every 200 ms: rounds follow one another quickly.
    return cluster.member(i, new HeartbeatTimings(100, 1_000, 2_000),
        new Replication.Settings(Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(10), 5, 0.1));
  }
}
