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
 * A cluster member told to stop asks its clients to move: each connects to another member,
 * registers again there and only then leaves, so that a subscriber on a third member never sees
 * one of their instances go, and the member stops as soon as its clients have left (not after the
 * move timeout).
 */
class MoveOnStopTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int APPS = 20;
  private static final Duration MOVE_TIMEOUT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  @Test
  void aStoppingMembersClientsMoveToTheOthersAndNoSubscriberSeesTheirInstancesGo() {
    TestCluster cluster = new TestCluster(dir);
    List<Integer> ports = cluster.ports;
    List<RegistryServer> nodes = TestCluster.start(i -> member(cluster, i));
    // The apps are given the leader's address alone: its stop hands over leadership as well as clients.
    int leader = awaitLeader(nodes);
    RegistryServer stopped = nodes.get(leader);
    List<RegistryServer> staying = new ArrayList<>(nodes);
    staying.remove(stopped);
    RegistryServer watched = staying.get(1);
    List<RegistryClient> apps = new ArrayList<>();
    List<String> pushed = new CopyOnWriteArrayList<>();
    try (WireClient watcher = WireClient.connect(watched.tcpPort(), "watcher")) {
      Disposable watch = watcher.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(pushed::add);
      for (int i = 0; i < APPS; i++) {
        RegistryClient app = RegistryClient.builder().servers("tcp://127.0.0.1:" + stopped.tcpPort())
            .clientName("app-" + i).build();
        apps.add(app);
        app.register(ORDERS, InstanceBody.of("127.0.0.1", 9000 + i, null, 1.0, Map.of())).block(WAIT);
      }
      await().atMost(WAIT).untilAsserted(() -> assertThat(instancesOn(watched)).isEqualTo(APPS));
      assertThat(stopped.openConnections()).isGreaterThanOrEqualTo(APPS);

      long start = System.nanoTime();
      stopped.disposeNow(WAIT);
      Duration stopTook = Duration.ofNanos(System.nanoTime() - start);

      // Leadership was handed over before the stop went on: a member leads at once, no election
      // timeout (800-1600 ms) passed without one.
      assertThat(staying).anyMatch(node -> node.storage().orElseThrow().leading());
      // The member waited for its clients, not for the timeout: each left once taken over elsewhere.
      // (Waiting for the timeout alone would take all of it; the leadership transfer before the
      // moves may take up to its own 3 s on a loaded machine, hence not half of it.)
      assertThat(stopTook).isLessThan(MOVE_TIMEOUT);
      assertThat(apps).allMatch(RegistryClient::isConnected);
      // Spread over both: each holds some apps besides the watcher and the other member's link.
      assertThat(staying.get(0).openConnections()).as("the first staying member took some").isGreaterThan(2);
      assertThat(watched.openConnections()).as("the second staying member took some").isGreaterThan(3);
      assertThat(staying.get(0).openConnections() + watched.openConnections()).isGreaterThanOrEqualTo(APPS + 3);
      // Once the watched member holds no copy of the stopped one's (its grace over), every instance
      // is still there, and none was ever pushed as removed.
      String stoppedId = "n" + (leader + 1);
      await().atMost(WAIT).until(() -> watched.runtime().read(reads -> reads.replicaCopies(stoppedId)) == 0);
      assertThat(instancesOn(watched)).isEqualTo(APPS);
      assertThat(pushed).noneMatch(frame -> frame.contains("\"REMOVE\""));
      watch.dispose();
    } finally {
      apps.forEach(RegistryClient::closeAndWait);
      for (RegistryServer node : staying) {
        node.disposeNow(Duration.ofSeconds(10));
      }
    }
  }

  /**
   * A client that does not honour moves (a raw RSocket client) is closed by the stop; its
   * instances stay with the other members for the replication grace, as after a crash, so that
   * when it registers again on another member no subscriber sees them go; those of a client that
   * does not come back go once the grace is over.
   */
  @Test
  void aClientThatCannotMoveKeepsItsInstancesForTheGraceWhereverItRegistersAgain() {
    TestCluster cluster = new TestCluster(dir);
    List<RegistryServer> nodes = TestCluster.start(i -> rawClientsMember(cluster, i));
    RegistryServer stopped = nodes.get(0);
    RegistryServer watched = nodes.get(1);
    List<String> pushed = new CopyOnWriteArrayList<>();
    try (WireClient watcher = WireClient.connect(watched.tcpPort(), "watcher");
        WireClient returning = WireClient.connect(stopped.tcpPort(), "returning");
        WireClient gone = WireClient.connect(stopped.tcpPort(), "gone")) {
      returning.call("instance.register", registration(9100));
      gone.call("instance.register", registration(9101));
      await().atMost(WAIT).untilAsserted(() -> assertThat(instancesOn(watched)).isEqualTo(2));
      Disposable watch = watcher.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(pushed::add);
      await().atMost(WAIT).until(() -> !pushed.isEmpty()); // the snapshot: the watch is on

      // The client comes back as soon as the stop closed its connection (while the member still
      // closes its storage): the grace runs from there.
      stopped.dispose();
      await().atMost(WAIT).until(returning::isDisposed);
      try (WireClient back = WireClient.connect(watched.tcpPort(), "returning")) {
        back.call("instance.register", registration(9100));
        stopped.disposeNow(WAIT);
        // The grace over, the stopped member's copies are gone: the one taken over stays.
        await().atMost(WAIT).until(() -> watched.runtime().read(reads -> reads.replicaCopies("n1")) == 0);
        assertThat(instancesOn(watched)).isEqualTo(1);
        await().atMost(WAIT).until(() -> pushed.stream().anyMatch(frame -> frame.contains("\"REMOVE\"")));
        assertThat(pushed).filteredOn(frame -> frame.contains("\"REMOVE\""))
            .singleElement().asString().contains("127.0.0.1#9101#DEFAULT");
      }
      watch.dispose();
    } finally {
      for (RegistryServer node : nodes.subList(1, 3)) {
        node.disposeNow(Duration.ofSeconds(10));
      }
    }
  }

  private static String registration(int port) {
    return "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port + "}}";
  }

  /** Raw clients do not heartbeat here: timings long enough not to expire them meanwhile; a 3 s grace. */
  private static ServerConfig rawClientsMember(TestCluster cluster, int i) {
    return cluster.member(i, new HeartbeatTimings(5_000, 30_000, 60_000),
        new Replication.Settings(Duration.ofSeconds(3), Duration.ofMillis(500), MOVE_TIMEOUT, 0, 0.1));
  }

  private static int awaitLeader(List<RegistryServer> nodes) {
    await().atMost(WAIT).until(() -> nodes.stream().anyMatch(node -> node.storage().orElseThrow().leading()));
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).storage().orElseThrow().leading()) {
        return i;
      }
    }
    throw new AssertionError("no leader");
  }

  private static int instancesOn(RegistryServer node) {
    return node.runtime().read(reads -> reads.instanceRecords(ServiceKey.of(Protocol.DEFAULT_NAMESPACE,
        Protocol.DEFAULT_GROUP, "orders")).size());
  }

  private static ServerConfig member(TestCluster cluster, int i) {
    // Rebalancing off: on a slow machine it could spread the apps before the stop, which must find
    // them all on the stopping member (what moves them here is the stop alone).
    return cluster.member(i, new HeartbeatTimings(100, 1_000, 2_000),
        new Replication.Settings(Duration.ofSeconds(1), Duration.ofMillis(500), MOVE_TIMEOUT, 0, 0.1));
  }
}
