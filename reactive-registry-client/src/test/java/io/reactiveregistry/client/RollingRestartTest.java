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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * A rolling restart with 300 clients registered and a subscriber on every member: each member in
 * turn is stopped (its clients asked to move) and started again on its data directory, the next
 * only once it is back. No subscriber ever sees an instance removed, every instance is on every
 * member at the end, and after the last restart the members spread the clients again, each holding
 * its share within the tolerance.
 */
@Tag("process") // a cluster, 300 clients, three restarts: left out by -Pquick like the process suites; run in CI
class RollingRestartTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(60);
  /** 300 in the suite; {@code -DrollingRestart.apps=1000} for load-tests/RESULTS.md's figure. */
  private static final int APPS = Integer.getInteger("rollingRestart.apps", 300);
  private static final Pattern CLIENT = Pattern.compile("\"client\":\"app-\\d+\"");
  private static final Pattern INSTANCE_ID = Pattern.compile("\"instanceId\":\"([^\"]+)\"");

  @TempDir
  Path dir;

  @Test
  void restartingEveryMemberInTurnRemovesNoInstanceAndTheClientsEndUpSpread() {
    TestCluster cluster = new TestCluster(dir);
    List<Integer> ports = cluster.ports;
    List<RegistryServer> nodes = new ArrayList<>(TestCluster.start(i -> member(cluster, i)));
    String[] servers = ports.subList(0, 3).stream().map(port -> "tcp://127.0.0.1:" + port).toArray(String[]::new);
    List<RegistryClient> apps = new ArrayList<>();
    List<String> pushed = new CopyOnWriteArrayList<>();
    List<WireClient> watchers = new ArrayList<>();
    List<Disposable> watches = new ArrayList<>();
    try {
      for (int i = 0; i < APPS; i++) {
        apps.add(RegistryClient.builder().servers(servers).clientName("app-" + i).build());
      }
      Flux.fromIterable(apps)
          .flatMap(app -> app.register(ORDERS, InstanceBody.of("127.0.0.1", 10_000 + apps.indexOf(app), null, 1.0,
              Map.of())), 32)
          .blockLast(WAIT);
      for (RegistryServer node : nodes) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(instancesOn(node)).isEqualTo(APPS));
      }

      long began = System.nanoTime();
      List<Long> stops = new ArrayList<>();
      for (int restarted = 0; restarted < 3; restarted++) {
        // A subscriber on each of the other two members, following the whole restart.
        for (int other = 0; other < 3; other++) {
          if (other != restarted) {
            WireClient watcher = WireClient.connect(ports.get(other), "watcher-" + restarted + "-" + other);
            watchers.add(watcher);
            watches.add(watcher.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(pushed::add));
          }
        }
        long stopping = System.nanoTime();
        nodes.get(restarted).disposeNow(WAIT);
        stops.add(Duration.ofNanos(System.nanoTime() - stopping).toMillis());
        // A client whose move failed (its destination was itself stopping or starting) reconnects
        // on its own: within the heartbeat timeout, before anything it owns could expire.
        int stoppedNode = restarted + 1;
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(apps)
            .as("connected once n%d stopped", stoppedNode).allMatch(RegistryClient::isConnected));
        nodes.set(restarted, RegistryServer.start(member(cluster, restarted + 1)).block(WAIT));
        RegistryServer back = nodes.get(restarted);
        await().atMost(WAIT).untilAsserted(() -> assertThat(instancesOn(back)).isEqualTo(APPS));
        // As the README's procedure (and cluster.sh rolling-restart) has it: the next member stops
        // only once every member follows every other's stream again.
        await().atMost(WAIT).until(() -> ports.subList(0, 3).stream().allMatch(TestCluster::streamsFromAll));
        watches.forEach(Disposable::dispose);
        watches.clear();
        // Checked each round, while the members that pushed a removal still keep its history (a
        // member's history starts with its run): a failure says which member removed it and why.
        int round = restarted + 1;
        List<String> removals = pushed.stream().filter(frame -> frame.contains("\"REMOVE\"")).toList();
        assertThat(removals).as(() -> "REMOVE pushed while n" + round + " restarted; the members' history of those "
            + "instances: " + historyOf(removals, ports.subList(0, 3))).isEmpty();
      }
      long restartedAll = Duration.ofNanos(System.nanoTime() - began).toMillis();
      assertThat(pushed).as("frames pushed to the subscribers").isNotEmpty()
          .noneMatch(frame -> frame.contains("\"REMOVE\""));

      // Spread again: 100 each, within the tolerance (10 %) and the slack.
      await().atMost(WAIT).untilAsserted(() -> {
        List<Integer> held = ports.subList(0, 3).stream().map(RollingRestartTest::clientsOn).toList();
        assertThat(held.stream().mapToInt(Integer::intValue).sum()).isEqualTo(APPS);
        assertThat(held).allSatisfy(count -> assertThat(count).isBetween(APPS * 85 / 300, APPS * 115 / 300));
      });
      System.out.printf("rolling restart of 3 members with %d clients: %d ms in all, each stop (its clients moved) "
          + "%s ms, spread again %d ms after the last restart%n", APPS, restartedAll, stops,
          Duration.ofNanos(System.nanoTime() - began).toMillis() - restartedAll);
      for (RegistryServer node : nodes) {
        assertThat(instancesOn(node)).isEqualTo(APPS);
      }
    } finally {
      watches.forEach(Disposable::dispose);
      watchers.forEach(WireClient::close);
      Flux.fromIterable(apps).flatMap(RegistryClient::close, 32).blockLast(WAIT);
      for (RegistryServer node : nodes) {
        node.disposeNow(Duration.ofSeconds(10));
      }
    }
  }

  private static int instancesOn(RegistryServer node) {
    return node.runtime().read(reads -> reads.instanceRecords(ServiceKey.of(Protocol.DEFAULT_NAMESPACE,
        Protocol.DEFAULT_GROUP, "orders")).size());
  }

  /** What each member's audit history says of the instances the frames name (admin.trace.query). */
  private static String historyOf(List<String> frames, List<Integer> ports) {
    StringBuilder history = new StringBuilder();
    Matcher instance = INSTANCE_ID.matcher(String.join("\n", frames));
    while (instance.find()) {
      for (int i = 0; i < ports.size(); i++) {
        try (WireClient ops = WireClient.connect(ports.get(i), "ops")) {
          history.append("\n  n").append(i + 1).append(", ").append(instance.group(1)).append(": ")
              .append(ops.call("admin.trace.query", "{\"instanceId\":\"" + instance.group(1) + "\"}"));
        } catch (RuntimeException e) {
          history.append("\n  n").append(i + 1).append(": ").append(e);
        }
      }
    }
    return history.toString();
  }

  /** How many of the apps are connected to the member on {@code port}. */
  private static int clientsOn(int port) {
    try (WireClient ops = WireClient.connect(port, "ops")) {
      Matcher client = CLIENT.matcher(ops.call("admin.connections", "{}"));
      int found = 0;
      while (client.find()) {
        found++;
      }
      return found;
    }
  }

  private static ServerConfig member(TestCluster cluster, int i) {
    return cluster.member(i, new HeartbeatTimings(1_000, 5_000, 10_000),
        new Replication.Settings(Duration.ofSeconds(4), Duration.ofMillis(500), Duration.ofSeconds(10), 50, 0.1));
  }
}
