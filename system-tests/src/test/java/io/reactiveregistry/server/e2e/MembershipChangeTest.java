package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.MemberChange;
import io.reactiveregistry.protocol.message.MemberList;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's membership changed online, under writes: a fourth member started with
 * {@code --join} is added (it receives the state, then votes), then the leader of the time is
 * removed; no acknowledged write is lost and every member left holds the same state. A change
 * that would leave no majority up, and a malformed member, are refused naming the rule and change
 * nothing; a dead member is replaced by a new one.
 *
 * <p>The tests share one cluster, in order: the second works on whichever three members are live
 * (those the first left, or the first three when it runs alone), since a member process is the
 * dearest thing the suite starts.
 */
@Tag("process")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipChangeTest {
  static final String SERVICE = "ledger";
  static final JsonCodec JSON = JsonCodec.json();

  @TempDir
  static Path dir;
  /**
   * Ports for five members (n1 to n5) and one more; reserved when the cluster starts, not when the
   * class loads (other tests call {@link #entry}).
   */
  static List<Integer> free;
  /** The live members, by id. */
  static final Map<String, ServerProcess> nodes = new TreeMap<>();
  static final List<Process> spawned = new ArrayList<>();

  @BeforeAll
  static void startThree() throws Exception {
    free = MemberPorts.free(11);
    String members = String.join(",", entry(1, free), entry(2, free), entry(3, free));
    for (int i = 1; i <= 3; i++) {
      spawned.add(ServerProcess.spawnMember(dir.resolve("n" + i), dir.resolve("n" + i + ".log"), "n" + i, members));
    }
    for (int i = 1; i <= 3; i++) {
      nodes.put("n" + i, ServerProcess.awaitListening(spawned.get(i - 1), dir.resolve("n" + i + ".log")));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    for (ServerProcess node : nodes.values()) {
      node.close();
    }
    spawned.forEach(Process::destroyForcibly);
  }

  @Test
  @Order(1)
  void aMemberIsAddedAndTheLeaderRemovedUnderWritesWithNoAcknowledgedWriteLost() throws Exception {

    // A writer on every member of the original three; each records what was acknowledged.
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Thread> writers = new ArrayList<>();
    for (int w = 1; w <= 3; w++) {
      int writer = w;
      int port = nodes.get("n" + w).port();
      Thread thread = new Thread(() -> write(port, writer, writing, acknowledged), "writer-" + w);
      thread.start();
      writers.add(thread);
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() >= 150);

    // n4 joins through n1: its ports open once it is added and holds the state.
    Process joining = ServerProcess.spawnMember(dir.resolve("n4"), dir.resolve("n4.log"), "n4", entry(4, free),
        "--join", "127.0.0.1:" + free.get(0));
    spawned.add(joining);
    nodes.put("n4", ServerProcess.awaitListening(joining, dir.resolve("n4.log")));
    for (String node : List.of("n1", "n2", "n3", "n4")) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberIds(node))
          .as("members seen by %s", node).containsExactlyInAnyOrder("n1", "n2", "n3", "n4"));
    }
    int atJoin = acknowledged.size();
    await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() >= atJoin + 100);

    // The leader of the time is removed, asked through another member.
    String leader = leader("n4");
    String asker = List.of("n1", "n2", "n3", "n4").stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
    try (WireClient client = WireClient.connect(nodes.get(asker).port(), "operator")) {
      MemberList after = JSON.decode(client.request("admin.members.remove",
          JSON.encodeToString(MemberChange.remove(leader))).block(Duration.ofSeconds(60)), MemberList.class);
      assertThat(after.members()).hasSize(3).noneMatch(entry -> entry.startsWith(leader + "="));
    }
    int atRemoval = acknowledged.size();
    await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() >= atRemoval + 100);
    writing.set(false);
    for (Thread writer : writers) {
      writer.join(15_000);
    }

    List<String> remaining = new ArrayList<>(List.of("n1", "n2", "n3", "n4"));
    remaining.remove(leader);
    for (String node : remaining) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(instanceIds(node))
          .as("every write acknowledged is on %s", node).containsAll(acknowledged));
      assertThat(memberIds(node)).as("members seen by %s", node).containsExactlyInAnyOrderElementsOf(remaining);
    }
    // A write whose answer the writer did not wait for may still be on its way to a member: the
    // states meet once it has been applied everywhere.
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      TreeSet<String> first = instanceIds(remaining.get(0));
      for (String node : remaining) {
        assertThat(instanceIds(node)).as("%s holds what %s holds", node, remaining.get(0)).isEqualTo(first);
      }
    });
    // The membership file follows the committed membership: a restart starts with it.
    assertThat(Files.readString(dir.resolve("n4").resolve("cluster.properties"))).doesNotContain(leader + "\\=");
    nodes.remove(leader).close(); // removed, it stops by itself; the next test works on the others
  }

  @Test
  @Order(2)
  void aChangeThatWouldLeaveNoMajorityUpAndAMalformedMemberAreRefusedNamingTheRuleAndADeadMemberIsReplaced()
      throws Exception {
    List<String> three = List.copyOf(nodes.keySet()); // n1, n2, n3 alone; after the first test, n4 among them
    assertThat(three).hasSize(3);
    String asked = three.get(0);
    String other = three.get(1);
    String dead = three.get(2);
    nodes.remove(dead).close();
    try (WireClient client = WireClient.connect(nodes.get(asked).port(), "operator")) {
      await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        ErrorBody refused = client.error("admin.members.remove", JSON.encodeToString(MemberChange.remove(other)));
        assertThat(refused.code()).isEqualTo("INVALID_PARAM");
        assertThat(refused.message()).contains("needs a majority of the members [" + asked + ", " + dead + "] up");
      });
      ErrorBody malformed = client.error("admin.members.add", JSON.encodeToString(MemberChange.add("n5=nowhere")));
      assertThat(malformed.code()).isEqualTo("INVALID_PARAM");
      assertThat(malformed.message()).contains("member entry 'n5=nowhere' must be id=host:port/raftPort");
      ErrorBody unknown = client.error("admin.members.remove", JSON.encodeToString(MemberChange.remove("n9")));
      assertThat(unknown.message()).contains("node 'n9' is not a member");
      ErrorBody clash = client.error("admin.members.add", JSON.encodeToString(
          MemberChange.add("n5=127.0.0.1:" + nodes.get(asked).port() + "/" + free.get(10))));
      assertThat(clash.message()).contains("would use a port member '" + asked + "' uses");
      ErrorBody moved = client.error("admin.members.add", JSON.encodeToString(
          MemberChange.add(other + "=127.0.0.1:1/2")));
      assertThat(moved.code()).isEqualTo("INVALID_PARAM");
      assertThat(moved.message()).contains("member '" + other + "' is a member already");
    }
    assertThat(memberIds(asked)).containsExactlyInAnyOrderElementsOf(three);

    // The dead member replaced by n5: n5 joins through one (the two live ones, a majority, commit
    // it), then the dead one goes.
    Process joining = ServerProcess.spawnMember(dir.resolve("n5"), dir.resolve("n5.log"), "n5", entry(5, free),
        "--join", "127.0.0.1:" + nodes.get(asked).port());
    spawned.add(joining);
    nodes.put("n5", ServerProcess.awaitListening(joining, dir.resolve("n5.log")));
    try (WireClient client = WireClient.connect(nodes.get(other).port(), "operator")) {
      ErrorBody itself = client.error("admin.members.replace",
          JSON.encodeToString(MemberChange.replace("n5", entry(5, free))));
      assertThat(itself.code()).isEqualTo("INVALID_PARAM");
      assertThat(itself.message()).contains("member 'n5' is the member to replace (node)");
      assertThat(client.error("admin.members.replace", JSON.encodeToString(MemberChange.replace("n9", entry(5, free))))
          .message()).contains("node 'n9' is not a member");
      // Refused (nothing changed) until the asked member hears from n5: with one member dead, n5
      // makes the majority of four.
      await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
        MemberList after = JSON.decode(client.request("admin.members.replace",
            JSON.encodeToString(MemberChange.replace(dead, entry(5, free)))).block(Duration.ofSeconds(60)),
            MemberList.class);
        assertThat(after.members()).extracting(entry -> entry.substring(0, entry.indexOf('=')))
            .containsExactlyInAnyOrder(asked, other, "n5");
        assertThat(after.members()).contains(entry(5, free));
      });
    }
    for (String node : List.of(asked, other, "n5")) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberIds(node))
          .as("members seen by %s", node).containsExactlyInAnyOrder(asked, other, "n5"));
    }
  }

  static String entry(int n, List<Integer> free) {
    return "n" + n + "=127.0.0.1:" + free.get(2 * (n - 1)) + "/" + free.get(2 * (n - 1) + 1);
  }

  /** Registers persistent instances one at a time, recording each acknowledged one; refusals are retried. */
  static void write(int port, int writer, AtomicBoolean writing, Set<String> acknowledged) {
    WireClient client = WireClient.connect(port, "writer-" + writer);
    try {
      for (int n = 0; writing.get(); n++) {
        String ip = "127." + writer + "." + (n / 250) + "." + (n % 250 + 1);
        try {
          client.call("instance.register", "{\"service\":\"" + SERVICE + "\",\"ephemeral\":false,\"instance\":"
              + "{\"ip\":\"" + ip + "\",\"port\":8080,\"metadata\":{\"health.check.enabled\":\"false\"}}}");
          acknowledged.add(ip + "#8080#DEFAULT");
        } catch (RuntimeException refusedOrLost) {
          if (client.isDisposed()) { // its member was removed and stopped: write through another
            return;
          }
        }
      }
    } finally {
      client.close();
    }
  }

  List<String> memberIds(String node) {
    try (WireClient client = WireClient.connect(nodes.get(node).port(), "reader")) {
      ServerInfo info = client.call("server.info", "{}", ServerInfo.class);
      return info.cluster().members().stream().map(member -> member.id()).toList();
    }
  }

  String leader(String node) {
    try (WireClient client = WireClient.connect(nodes.get(node).port(), "reader")) {
      return client.call("server.info", "{}", ServerInfo.class).cluster().leader();
    }
  }

  TreeSet<String> instanceIds(String node) {
    try (WireClient client = WireClient.connect(nodes.get(node).port(), "reader")) {
      ServiceSnapshot snapshot = client.call("service.query", "{\"service\":\"" + SERVICE + "\"}",
          ServiceSnapshot.class);
      return snapshot.instances().stream().map(InstanceBody::instanceId)
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
