package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.rsocket.exceptions.ApplicationErrorException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * Three server processes on loopback as one cluster: durable writes through any member reach
 * every member, exactly one member checks each persistent instance, a killed leader loses no
 * acknowledged write and is replaced within the election bound, a minority refuses durable
 * writes with {@code UNAVAILABLE} while ephemeral traffic goes on, and a stopped or restarted
 * member catches up. The tests share one cluster and run in order.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterEndToEndTest {
  static final int MEMBERS = 3;
  /** Health checks every half second, so that counting them takes a few seconds. */
  static final String CHECK_INTERVAL_MS = "500";

  @TempDir
  static Path dir;
  static String members;
  static final Map<String, ServerProcess> nodes = new LinkedHashMap<>();
  static final Map<String, Integer> ports = new LinkedHashMap<>();
  static ServerSocket backend;
  static final AtomicInteger checks = new AtomicInteger();

  @BeforeAll
  static void startCluster() throws Exception {
    List<String> entries = new ArrayList<>();
    List<Integer> free = MemberPorts.free(2 * MEMBERS);
    for (int i = 1; i <= MEMBERS; i++) {
      int port = free.get(2 * (i - 1));
      ports.put("n" + i, port);
      entries.add("n" + i + "=127.0.0.1:" + port + "/" + free.get(2 * (i - 1) + 1));
    }
    members = String.join(",", entries);
    Map<String, Process> started = new LinkedHashMap<>();
    for (String id : ports.keySet()) {
      started.put(id, spawn(id, 1));
    }
    for (Map.Entry<String, Process> member : started.entrySet()) {
      nodes.put(member.getKey(), ServerProcess.awaitListening(member.getValue(), log(member.getKey(), 1)));
    }
    // A backend for health checks: counts the connections made to it.
    backend = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    Thread counter = new Thread(() -> {
      while (!backend.isClosed()) {
        try (Socket accepted = backend.accept()) {
          checks.incrementAndGet();
        } catch (IOException closed) {
          return;
        }
      }
    }, "health-check-backend");
    counter.setDaemon(true);
    counter.start();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (backend != null) {
      backend.close();
    }
    for (ServerProcess node : nodes.values()) {
      node.close();
    }
  }

  @Test
  @Order(1)
  void aPersistentRegistrationThroughAnyMemberIsSeenAndPushedOnEveryMember() throws Exception {
    List<String> pushed = new CopyOnWriteArrayList<>();
    List<String> traced = new CopyOnWriteArrayList<>();
    try (WireClient watcher = WireClient.connect(port("n3"), "watcher")) {
      Disposable watch = watcher.stream("service.subscribe", "{\"service\":\"db\"}").subscribe(pushed::add);
      Disposable trace = watcher.stream("admin.trace", "{\"service\":\"db\"}").subscribe(traced::add);
      await().atMost(Duration.ofSeconds(5)).until(() -> pushed.stream().anyMatch(e -> e.contains("SNAPSHOT"))
          && metrics("n3").contains("registry_trace_subscribers 1.0"));
      int i = 0;
      for (String id : ports.keySet()) {
        i++;
        try (WireClient client = WireClient.connect(port(id), "writer-" + id)) {
          assertThat(client.call("instance.register", persistent("db", "127.0.0." + i, 5432)))
              .contains("127.0.0." + i + "#5432#DEFAULT");
        }
      }
      for (String id : ports.keySet()) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
            assertThat(instanceIds(id, "db")).as("on %s", id)
                .containsExactlyInAnyOrder("127.0.0.1#5432#DEFAULT", "127.0.0.2#5432#DEFAULT", "127.0.0.3#5432#DEFAULT"));
      }
      // The registration through n1 reached n3's subscriber as a push.
      await().atMost(Duration.ofSeconds(5)).until(() -> pushed.stream()
          .anyMatch(e -> e.contains("\"UPSERT\"") && e.contains("127.0.0.1")));
      // n3's audit trail shows it applied a change another member made.
      await().atMost(Duration.ofSeconds(5)).until(() -> traced.stream()
          .anyMatch(e -> e.contains("\"REPLICATED\"") && e.contains("127.0.0.1#5432#DEFAULT")));
      watch.dispose();
      trace.dispose();
    }
    ServerInfo info = info("n2");
    assertThat(info.nodeId()).isEqualTo("n2");
    assertThat(info.members()).containsExactly("n1", "n2", "n3");
    assertThat(info.cluster().leader()).isIn("n1", "n2", "n3");
    assertThat(info.cluster().members()).extracting(ClusterInfo.Member::state).contains("leader");
    String leader = leader();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      ClusterInfo seen = httpCluster(leader);
      assertThat(seen.role()).isEqualTo("leader");
      assertThat(seen.members()).extracting(ClusterInfo.Member::state).containsOnly("leader", "follower");
    });
  }

  @Test
  @Order(2)
  void exactlyOneMemberChecksEachPersistentInstance() throws Exception {
    try (WireClient client = WireClient.connect(port("n1"), "checker")) {
      client.call("instance.register", persistent("checked", "127.0.0.1", backend.getLocalPort()));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> checks.get() > 0);
    // Timed by the rule, not by a sleep: one checker's ten checks need nine intervals at least
    // (4.5 s), three checkers' about a third of that. A loaded machine only makes checks later,
    // which slows the ten down and never speeds them up.
    int before = checks.get();
    long start = System.nanoTime();
    await().atMost(Duration.ofSeconds(30)).until(() -> checks.get() - before >= 10);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    long interval = Long.parseLong(CHECK_INTERVAL_MS);
    assertThat(took).as("ten checks at one per %d ms by one member", interval)
        .isGreaterThanOrEqualTo(Duration.ofMillis(9 * interval * 8 / 10)); // a tenth of slack for each tick's jitter
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      for (String id : ports.keySet()) {
        assertThat(instances(id, "checked")).as("on %s", id).singleElement()
            .satisfies(instance -> assertThat(instance.healthy()).isTrue());
      }
    });
  }

  @Test
  @Order(3)
  void killingTheLeaderLosesNoAcknowledgedWriteAndAnotherTakesOverWritesAndChecks() throws Exception {
    String leader = leader();
    String writerNode = ports.keySet().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    long killedAt;
    long firstWriteAfterKill = 0;
    try (WireClient client = WireClient.connect(port(writerNode), "burst")) {
      int next = 0;
      for (; next < 60; next++) {
        register(client, next, acknowledged);
      }
      nodes.get(leader).kill();
      killedAt = System.nanoTime();
      int checksAtKill = checks.get();
      while (System.nanoTime() - killedAt < Duration.ofSeconds(20).toNanos()) {
        if (register(client, next++, acknowledged)) {
          firstWriteAfterKill = System.nanoTime();
          break;
        }
      }
      assertThat(firstWriteAfterKill).as("a write committed after the leader was killed").isPositive();
      assertThat(Duration.ofNanos(firstWriteAfterKill - killedAt)).as("from kill -9 to a committed write")
          .isLessThan(Duration.ofSeconds(10));
      for (int i = 0; i < 20; i++) {
        register(client, next++, acknowledged);
      }
      // Checks resume on the new leader within an election plus one interval.
      await().atMost(Duration.ofSeconds(10)).until(() -> checks.get() > checksAtKill + 2);
    }
    for (String id : ports.keySet()) {
      if (!id.equals(leader)) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
            assertThat(instanceIds(id, "burst")).as("on %s", id).containsAll(acknowledged));
      }
    }
    // The killed member comes back with its data directory and catches up.
    nodes.put(leader, ServerProcess.awaitListening(spawn(leader, 2), log(leader, 2)));
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
        assertThat(instanceIds(leader, "burst")).as("on the restarted %s", leader).containsAll(acknowledged));
  }

  @Test
  @Order(4)
  void aMinorityRefusesDurableWritesButNotEphemeralOnesAndRecoversWithTheMajority() throws Exception {
    String alone = "n3";
    List<String> stopped = ports.keySet().stream().filter(id -> !id.equals(alone)).toList();
    for (String id : stopped) {
      nodes.get(id).signal("STOP");
    }
    try (WireClient client = WireClient.connect(port(alone), "minority")) {
      long start = System.nanoTime();
      ErrorBody refused = errorOf(() -> client.request("instance.register", persistent("minority", "127.0.0.1", 1))
          .block(Duration.ofSeconds(30)));
      assertThat(refused.code()).isEqualTo("UNAVAILABLE");
      assertThat(refused.message()).contains("majority");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(12));
      assertThat(client.call("instance.register",
          "{\"service\":\"ephemeral-while-alone\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":1}}"))
          .contains("127.0.0.1#1#DEFAULT");
      // Put back once no write of this node touching it is in flight: the first health check's
      // verdict on the new instance is a durable write too, refused in its turn.
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(instanceIds(alone, "minority")).as("the refused write is put back").isEmpty());
    } finally {
      for (String id : stopped) {
        nodes.get(id).signal("CONT");
      }
    }
    try (WireClient client = WireClient.connect(port(alone), "minority-again")) {
      await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() ->
          client.request("instance.register", persistent("minority", "127.0.0.2", 1)).block(Duration.ofSeconds(10))
              .contains("127.0.0.2#1#DEFAULT"));
    }
    for (String id : ports.keySet()) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(instanceIds(id, "minority")).as("on %s", id).contains("127.0.0.2#1#DEFAULT"));
    }
  }

  @Test
  @Order(5)
  void aFollowerStoppedWhileTheLeaderSnapshotsTwiceCatchesUp() throws Exception {
    String leader = leader();
    String follower = ports.keySet().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
    String writerNode = leader;
    int snapshotsBefore = snapshots(leader);
    nodes.get(follower).signal("STOP");
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    long stoppedAt = System.nanoTime();
    try (WireClient client = WireClient.connect(port(writerNode), "while-stopped")) {
      // Away until the leader has taken two snapshots (one every 50 entries) and purged its log
      // behind them: the follower can catch up only from a snapshot. At most 20 s.
      int next = 0;
      while ((acknowledged.size() <= 100 || snapshots(leader) < snapshotsBefore + 2)
          && System.nanoTime() - stoppedAt < Duration.ofSeconds(20).toNanos()) {
        register(client, next++, acknowledged, "caught-up");
        Thread.sleep(20);
      }
    } finally {
      nodes.get(follower).signal("CONT");
    }
    assertThat(acknowledged).hasSizeGreaterThan(100);
    assertThat(snapshots(leader)).as("the leader's snapshots while the follower was away")
        .isGreaterThanOrEqualTo(snapshotsBefore + 2);
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
        assertThat(instanceIds(follower, "caught-up")).as("on %s", follower).containsExactlyInAnyOrderElementsOf(acknowledged));
    for (ServerProcess node : nodes.values()) {
      node.assertNothingBlocked();
    }
  }

  @Test
  @Order(6)
  void aConsistentQueryOnAFollowerThatWasPausedSeesTheLastCommittedWrite() throws Exception {
    String leader = leader();
    String follower = ports.keySet().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
    try (WireClient reader = WireClient.connect(port(follower), "consistent-reader")) {
      nodes.get(follower).signal("STOP");
      Set<String> acknowledged = ConcurrentHashMap.newKeySet();
      try (WireClient writer = WireClient.connect(port(leader), "writer")) {
        for (int n = 0; n < 5; n++) {
          assertThat(register(writer, 5_000 + n, acknowledged, "linearizable")).isTrue();
        }
      } finally {
        nodes.get(follower).signal("CONT");
      }
      // At once after it resumes, before it has necessarily heard from the leader: the consistent
      // query waits for the commit index the leader had, then answers.
      ServiceSnapshot consistent = reader.call("service.query",
          "{\"service\":\"linearizable\",\"consistent\":true}", ServiceSnapshot.class);
      assertThat(consistent.instances()).extracting(InstanceBody::instanceId)
          .containsExactlyInAnyOrderElementsOf(acknowledged);
      HttpResponse<String> overHttp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + nodes.get(follower).httpPort()
              + "/api/v1/services/public/DEFAULT_GROUP/linearizable?consistent=true")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(overHttp.statusCode()).isEqualTo(200);
      assertThat(JsonCodec.json().decode(overHttp.body(), ServiceSnapshot.class).instances()).hasSize(5);
      // A consistent query that is not valid is refused at once, naming the field.
      assertThat(reader.error("service.query", "{\"service\":\"linearizable\",\"consistent\":true,"
          + "\"selector\":\"version in\"}").message()).contains("selector");
    }
  }

  // ---------------------------------------------------------------- helpers

  /** How many snapshots the member's log reports it took (not loaded). */
  static int snapshots(String id) throws IOException {
    return (int) nodes.get(id).log().lines()
        .filter(line -> line.contains("snapshot of") && !line.contains("loaded snapshot of")).count();
  }

  static Process spawn(String id, int run) throws IOException {
    return ServerProcess.spawnMember(dir.resolve(id), log(id, run), id, members,
        "--health-check-interval-ms", CHECK_INTERVAL_MS, "--health-check-timeout-ms", "400",
        // Snapshots (and the log purged behind them) every 50 entries: a member that was away
        // catches up from the leader's snapshot as well as from its log.
        "--snapshot-every", "50");
  }

  static Path log(String id, int run) {
    return dir.resolve(id + "-" + run + ".log");
  }

  static int port(String id) {
    return ports.get(id);
  }

  static boolean register(WireClient client, int n, Set<String> acknowledged) {
    return register(client, n, acknowledged, "burst");
  }

  /** One persistent registration; true, and remembered, when it was acknowledged. */
  static boolean register(WireClient client, int n, Set<String> acknowledged, String service) {
    String ip = "127.0." + (n / 250 + 10) + "." + (n % 250 + 1);
    try {
      client.request("instance.register", persistent(service, ip, 5432)).block(Duration.ofSeconds(15));
      acknowledged.add(ip + "#5432#DEFAULT");
      return true;
    } catch (ApplicationErrorException | IllegalStateException refusedOrTimedOut) {
      return false;
    }
  }

  static String persistent(String service, String ip, int port) {
    return "{\"service\":\"" + service + "\",\"ephemeral\":false,\"instance\":{\"ip\":\"" + ip + "\",\"port\":" + port
        + "}}";
  }

  static List<InstanceBody> instances(String id, String service) {
    try (WireClient client = WireClient.connect(port(id), "reader")) {
      return client.call("service.query", "{\"service\":\"" + service + "\"}", ServiceSnapshot.class).instances();
    }
  }

  static Set<String> instanceIds(String id, String service) {
    return instances(id, service).stream().map(InstanceBody::instanceId).collect(Collectors.toSet());
  }

  static ServerInfo info(String id) {
    try (WireClient client = WireClient.connect(port(id), "info")) {
      return client.call("server.info", "{}", ServerInfo.class);
    }
  }

  /** The leader, as every live member agrees. */
  static String leader() {
    String[] leader = new String[1];
    await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> {
      Set<String> seen = nodes.entrySet().stream().filter(node -> node.getValue().alive())
          .map(node -> String.valueOf(info(node.getKey()).cluster().leader())).collect(Collectors.toSet());
      leader[0] = seen.size() == 1 ? seen.iterator().next() : null;
      return leader[0] != null && !leader[0].equals("null");
    });
    return leader[0];
  }

  static ClusterInfo httpCluster(String id) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + nodes.get(id).httpPort() + "/api/v1/cluster")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return JsonCodec.json().decode(response.body(), ClusterInfo.class);
  }

  static String metrics(String id) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + nodes.get(id).httpPort() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  static ErrorBody errorOf(Runnable call) {
    try {
      call.run();
    } catch (ApplicationErrorException e) {
      return WireClient.errorOf(e);
    }
    throw new AssertionError("expected the call to be refused");
  }

}
