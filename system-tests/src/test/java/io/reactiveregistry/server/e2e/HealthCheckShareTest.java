package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * Health checks shared by the members: three server processes, 120 persistent instances over 60
 * services, each instance an HTTP backend started here that records which member checked it (the
 * member names itself in the check's {@code User-Agent}). Each member checks about a third, each
 * instance is checked by one member, once per interval; a member killed, the others check its
 * share from their next round on. (A service's instances go to one member, so the spread is the
 * services': 60 give the members 22, 22 and 16 of them, then 30 and 30. Two instances a service
 * show that they go together; more would only cost checks, which this cold, C1-compiled, shared
 * machine pays dearly for.)
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class HealthCheckShareTest {
  static final long INTERVAL_MS = 1000;
  static final int SERVICES = 60;
  static final int PER_SERVICE = 2;
  static final Pattern CHECKER = Pattern.compile("\\(node (n\\d)\\)");

  @TempDir
  Path dir;
  final Map<String, ServerProcess> nodes = new LinkedHashMap<>();
  final List<DisposableServer> backends = new ArrayList<>();
  /** Per backend (its index), the member of each check since the map was last cleared, in order. */
  final Map<Integer, ConcurrentLinkedQueue<String>> checks = new ConcurrentHashMap<>();

  @AfterEach
  void stop() throws Exception {
    backends.forEach(DisposableServer::disposeNow);
    for (ServerProcess node : nodes.values()) {
      node.close();
    }
  }

  @Test
  void eachMemberChecksItsShareEachInstanceOncePerIntervalAndALostMembersShareMovesToTheOthers() throws Exception {
    List<Integer> free = MemberPorts.free(6);
    String members = MembershipChangeTest.entry(1, free) + "," + MembershipChangeTest.entry(2, free) + ","
        + MembershipChangeTest.entry(3, free);
    List<Process> spawned = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      spawned.add(ServerProcess.spawnMember(dir.resolve("n" + i), dir.resolve("n" + i + ".log"), "n" + i, members,
          "--health-check-interval-ms", String.valueOf(INTERVAL_MS), "--health-check-timeout-ms", "500"));
    }
    for (int i = 1; i <= 3; i++) {
      nodes.put("n" + i, ServerProcess.awaitListening(spawned.get(i - 1), dir.resolve("n" + i + ".log")));
    }
    for (int i = 0; i < SERVICES * PER_SERVICE; i++) {
      int backendIndex = i;
      DisposableServer backend = HttpServer.create().host("127.0.0.1").port(0)
          .handle((request, response) -> {
            Matcher checker = CHECKER.matcher(String.valueOf(request.requestHeaders().get("User-Agent")));
            checks.computeIfAbsent(backendIndex, index -> new ConcurrentLinkedQueue<>())
                .add(checker.find() ? checker.group(1) : "unnamed");
            return response.status(200).send(Mono.empty());
          })
          .bindNow();
      backends.add(backend);
    }
    try (WireClient client = WireClient.connect(nodes.get("n1").port(), "registrar")) {
      for (int i = 0; i < backends.size(); i++) {
        client.call("instance.register", "{\"service\":\"checked-" + (i % SERVICES) + "\",\"ephemeral\":false,"
            + "\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + backends.get(i).port() + ",\"metadata\":"
            + "{\"health.http.path\":\"/healthz\"}}}");
      }
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(healthy("n2"))
        .as("instances shown healthy on n2").isEqualTo(backends.size()));

    Map<String, Integer> shares = window(List.of("n1", "n2", "n3"));
    assertThat(shares).as("who checks").containsOnlyKeys("n1", "n2", "n3");
    assertThat(shares.values()).as("instances checked by each member, of %d", backends.size())
        .allSatisfy(count -> assertThat(count).isGreaterThan(backends.size() / 6));

    // n3 is lost: from the others' next round on, they check its share too.
    nodes.remove("n3").close();
    checks.clear();
    long lost = System.nanoTime();
    await().atMost(Duration.ofSeconds(15)).until(() -> checks.size() == backends.size());
    assertThat(Duration.ofNanos(System.nanoTime() - lost)).as("until every instance was checked again")
        .isLessThan(Duration.ofMillis(INTERVAL_MS * 8));
    Map<String, Integer> after = window(List.of("n1", "n2"));
    assertThat(after).as("who checks").containsOnlyKeys("n1", "n2");
    assertThat(after.values()).allSatisfy(count -> assertThat(count).isGreaterThan(backends.size() / 4));
  }

  /**
   * Counts the checks of every instance while each is checked three times: each by one member of
   * {@code checkers}, and none more often than once per interval. Answers how many instances each
   * member checked.
   */
  private Map<String, Integer> window(List<String> checkers) {
    checks.clear();
    long start = System.nanoTime();
    await().atMost(Duration.ofSeconds(20)).until(() -> checks.size() == backends.size()
        && checks.values().stream().allMatch(seen -> seen.size() >= 3));
    long elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
    Map<Integer, List<String>> seen = checks.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, entry -> List.copyOf(entry.getValue())));
    Map<String, Integer> byMember = new ConcurrentHashMap<>();
    seen.forEach((backend, members) -> {
      assertThat(members.stream().distinct().toList()).as("members that checked backend %d", backend)
          .hasSize(1).isSubsetOf(checkers);
      // A round may start just after the window opened and another just before it closed.
      assertThat((long) members.size()).as("checks of backend %d in %d ms", backend, elapsedMs)
          .isLessThanOrEqualTo(elapsedMs / INTERVAL_MS + 2);
      byMember.merge(members.get(0), 1, Integer::sum);
    });
    return byMember;
  }

  private int healthy(String node) {
    int count = 0;
    try (WireClient client = WireClient.connect(nodes.get(node).port(), "reader")) {
      for (int s = 0; s < SERVICES; s++) {
        count += (int) client.call("service.query", "{\"service\":\"checked-" + s + "\"}", ServiceSnapshot.class)
            .instances().stream().filter(InstanceBody::healthy).count();
      }
    }
    return count;
  }
}
