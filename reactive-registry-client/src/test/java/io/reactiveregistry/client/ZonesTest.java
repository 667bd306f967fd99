package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.e2e.ServerProcess;
import io.reactiveregistry.server.e2e.WireClient;
import io.reactiveregistry.server.replication.Replication;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Zones: n1 is in zone a, n2 and n3 in zone b. Clients of zone a given only n2's address end up on
 * n1 (the member of their zone), move to zone b when n1 is killed or stopped, and come back once n1
 * is up again; their choices prefer instances of their zone while any serves traffic.
 */
class ZonesTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int APPS = 6;
  private static final Pattern CLIENT = Pattern.compile("\"client\":\"(zoned-\\d+)\"");
  private static final Pattern INSTANCE = Pattern.compile("\"port\":91\\d\\d");

  @TempDir
  Path dir;

  @Test
  void clientsOfAZoneUseItsMembersFailOverToAnotherZoneWhenItsMemberIsKilledAndComeBack() throws Exception {
    TestCluster cluster = new TestCluster(dir);
    List<Integer> ports = cluster.ports;
    // n1, zone a's only member, is a process of its own, so that it can be killed with no goodbye.
    Process spawned = spawnZoneA(cluster);
    List<RegistryServer> zoneB = Flux.range(2, 2).flatMapSequential(n -> RegistryServer.start(member(cluster, n, "b")))
        .collectList().block(Duration.ofSeconds(60));
    ServerProcess n1 = ServerProcess.awaitListening(spawned, dir.resolve("n1.log"));
    List<RegistryClient> apps = new ArrayList<>();
    try {
      for (int i = 0; i < APPS; i++) {
        apps.add(RegistryClient.builder().servers("tcp://127.0.0.1:" + ports.get(1)).clientName("zoned-" + i)
            .zone("a").build());
      }
      apps.forEach(app -> app.register(ServiceName.of("zoned"),
          InstanceBody.of("127.0.0.1", 9100 + apps.indexOf(app), null, 1.0, Map.of())).block(WAIT));
      // n2 asks them to go home to n1, the member of their zone.
      await().atMost(WAIT).untilAsserted(() -> assertThat(clientsOn(ports.get(0))).hasSize(APPS));

      // Zone a is lost, SIGKILL: nobody asks them to move. They find zone b, the only one left, by
      // themselves, and register there again: their instances stay in the catalog.
      n1.kill();
      awaitAllInZoneB(ports);
      assertThat(apps).allMatch(RegistryClient::isConnected);
      assertThat(instancesOf(ports.get(1))).isEqualTo(APPS);

      // n1 is back: they are moved back to it.
      n1 = ServerProcess.awaitListening(spawnZoneA(cluster), dir.resolve("n1.log"));
      // A client moving opens its new connection before it closes the old one: both lists settle together.
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(clientsOn(ports.get(0))).hasSize(APPS);
        assertThat(clientsOn(ports.get(1))).isEmpty();
        assertThat(clientsOn(ports.get(2))).isEmpty();
      });

      // Zone a stopped the polite way, SIGTERM: it asks them to move to zone b before it closes.
      assertThat(n1.terminate(Duration.ofSeconds(30))).as("n1 ended after SIGTERM").isTrue();
      awaitAllInZoneB(ports);
      assertThat(apps).allMatch(RegistryClient::isConnected);
      assertThat(instancesOf(ports.get(2))).isEqualTo(APPS);
    } finally {
      apps.forEach(RegistryClient::closeAndWait);
      n1.close();
      for (RegistryServer node : zoneB) {
        node.disposeNow(Duration.ofSeconds(10));
      }
    }
  }

  @Test
  void aClientOfAZoneChoosesInstancesOfItsZoneWhileAnyServesTraffic() {
    RegistryServer server = TestServers.start(0);
    RegistryClient registrar = RegistryClient.builder().servers(TestServers.address(server)).build();
    RegistryClient caller = RegistryClient.builder().servers(TestServers.address(server)).zone("a").build();
    try {
      ServiceName service = ServiceName.of("zoned-backends");
      Registration inZone = registrar.register(service, InstanceBody.of("127.0.0.1", 9201, null, 1.0,
          Map.of("zone", "a"))).block(WAIT);
      registrar.register(service, InstanceBody.of("127.0.0.1", 9202, null, 1.0, Map.of("zone", "b"))).block(WAIT);
      registrar.register(service, InstanceBody.of("127.0.0.1", 9203, null, 1.0, Map.of())).block(WAIT);
      await().atMost(WAIT).untilAsserted(() -> assertThat(caller.query(service).block(WAIT).instances()).hasSize(3));
      for (int i = 0; i < 30; i++) {
        assertThat(caller.choose(service).block(WAIT).port()).isEqualTo(9201);
      }
      inZone.deregister().block(WAIT);
      Set<Integer> chosen = new HashSet<>();
      await().atMost(WAIT).untilAsserted(() -> {
        chosen.add(caller.choose(service).block(WAIT).port());
        assertThat(chosen).containsExactlyInAnyOrder(9202, 9203);
      });
    } finally {
      caller.closeAndWait();
      registrar.closeAndWait();
      server.disposeNow(Duration.ofSeconds(10));
    }
  }

  /** n1 in zone a, as a process, with the same timings as {@link #member} gives n2 and n3. */
  private Process spawnZoneA(TestCluster cluster) throws IOException {
    return ServerProcess.spawnMember(dir.resolve("n1"), dir.resolve("n1.log"), "n1", cluster.members, "--zone", "a",
        "--heartbeat-interval-ms", "100", "--heartbeat-timeout-ms", "1000", "--delete-timeout-ms", "2000",
        "--replication-grace-ms", "1000", "--anti-entropy-interval-ms", "200", "--rebalance-per-round", "5");
  }

  /** Every zoned client on n2 or n3, none left on n1. */
  private static void awaitAllInZoneB(List<Integer> ports) {
    await().atMost(WAIT).untilAsserted(() -> {
      Set<String> elsewhere = new HashSet<>(clientsOn(ports.get(1)));
      elsewhere.addAll(clientsOn(ports.get(2)));
      assertThat(elsewhere).hasSize(APPS);
    });
  }

  /** How many instances of the zoned service the member on {@code port} holds. */
  private static int instancesOf(int port) {
    try (WireClient ops = WireClient.connect(port, "ops")) {
      Matcher instance = INSTANCE.matcher(ops.call("service.query", "{\"service\":\"zoned\"}"));
      int found = 0;
      while (instance.find()) {
        found++;
      }
      return found;
    }
  }

  /** The names of the zoned clients connected to the member on {@code port}. */
  private static List<String> clientsOn(int port) {
    try (WireClient ops = WireClient.connect(port, "ops")) {
      Matcher client = CLIENT.matcher(ops.call("admin.connections", "{}"));
      List<String> found = new ArrayList<>();
      while (client.find()) {
        found.add(client.group(1));
      }
      return found;
    }
  }

  private static ServerConfig member(TestCluster cluster, int i, String zone) {
    // Digests, which carry each member's zone, every 200 ms: rounds follow one another quickly.
    return cluster.member(i, new HeartbeatTimings(100, 1_000, 2_000),
        new Replication.Settings(Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofSeconds(10), 5, 0.1)
            .withZone(zone));
  }
}
