package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceDetail;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * A server process with a data directory is killed with SIGKILL, no clean shutdown, and started
 * again on the same directory: everything it acknowledged is back, and restored before its ports
 * open.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class CrashRecoveryTest {
  private static final Pattern RESTORED = Pattern.compile("restored (\\d+) durable values");

  @TempDir
  Path dir;

  private static String persistent(String service, String ip, int port) {
    return "{\"service\":\"" + service + "\",\"ephemeral\":false,\"instance\":{\"ip\":\"" + ip + "\",\"port\":" + port
        + ",\"metadata\":{\"role\":\"replica\"}}}";
  }

  /**
   * The service's instances. Waits up to 30 s for the answer, not the client's usual 5: a server
   * just restarted on a loaded machine may take longer to answer its first read, and what is
   * checked here is what it holds, not how fast it says so.
   */
  private static Map<String, InstanceBody> instances(WireClient client, String service) {
    ServiceSnapshot snapshot = JsonCodec.json().decode(client.request("service.query",
        "{\"service\":\"" + service + "\"}").block(Duration.ofSeconds(30)).getBytes(StandardCharsets.UTF_8),
        ServiceSnapshot.class);
    return snapshot.instances().stream().collect(Collectors.toMap(InstanceBody::instanceId, Function.identity()));
  }

  /**
   * One server's data directory through three kills and a last start, with snapshots every 20 log
   * entries so that restarts read snapshots and replay the log after them. Checked after each:
   * what was acknowledged one request at a time before the first kill (persistent registrations
   * and a deregistration, a service's definition, overrides of a persistent and of an ephemeral
   * instance); every acknowledged registration of a burst the first kill cut; and random
   * acknowledged writes against a model of what must survive, written before each kill. (One test
   * rather than several, each with its own server: a server process is the dearest thing the suite
   * starts.)
   */
  @Test
  void acknowledgedWritesAndEveryAcknowledgedRegistrationOfABurstCutByAKillSurviveRepeatedKills() throws Exception {
    Path data = dir.resolve("data");
    RandomWrites random = new RandomWrites(new java.util.Random(42));
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    int burst = 1_000;
    CountDownLatch someAcknowledged = new CountDownLatch(100);
    try (ServerProcess server = ServerProcess.start(data, dir.resolve("life-1.log"), "--snapshot-every", "20")) {
      try (WireClient client = WireClient.connect(server.port(), "operator")) {
        for (int i = 1; i <= 50; i++) {
          client.call("instance.register", persistent("db", "127.0.0." + i, 5432));
        }
        client.call("instance.deregister", "{\"service\":\"db\",\"instance\":{\"ip\":\"127.0.0.50\",\"port\":5432}}");
        client.call("admin.service.create",
            "{\"service\":\"orders\",\"protectThreshold\":0.6,\"metadata\":{\"team\":\"checkout\"}}");
        client.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.1.1\",\"port\":8080}}");
        client.call("admin.instance.patch",
            "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.1.1\",\"port\":8080},\"enabled\":false}");
        client.call("admin.instance.update",
            "{\"service\":\"db\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":5432},\"weight\":5.0}");
        random.write(client);
      }

      WireClient[] clients = new WireClient[8];
      for (int c = 0; c < clients.length; c++) {
        clients[c] = WireClient.connect(server.port(), "burst-" + c);
      }
      // The last 700 are held back until the kill has been sent, so that the kill always lands
      // mid-burst however fast the machine answers the first 300.
      reactor.core.publisher.Sinks.Empty<Void> killSent = reactor.core.publisher.Sinks.empty();
      Disposable registrations = Flux.range(0, burst)
          .flatMap(i -> clients[i % clients.length]
              .request("instance.register", persistent("cache", "127.0." + (i / 250) + "." + (i % 250 + 1), 6379))
              .delaySubscription(i < 300 ? reactor.core.publisher.Mono.empty() : killSent.asMono())
              .map(answer -> JsonCodec.json().decode(answer, io.reactiveregistry.protocol.message.RegisterResult.class))
              .doOnNext(result -> {
                acknowledged.add(result.instanceId());
                someAcknowledged.countDown();
              })
              .onErrorResume(error -> reactor.core.publisher.Mono.empty()), 64)
          .subscribe();
      assertThat(someAcknowledged.await(30, TimeUnit.SECONDS)).isTrue();

      server.kill(); // mid-burst: some registrations are in flight, some not yet sent
      killSent.tryEmitEmpty();
      registrations.dispose();
      for (WireClient client : clients) {
        client.close();
      }
    }
    assertThat(acknowledged.size()).as("the kill cut the burst (held back registrations were never answered)")
        .isLessThan(burst);

    for (int life = 2; life <= 3; life++) {
      try (ServerProcess server = ServerProcess.start(data, dir.resolve("life-" + life + ".log"),
          "--snapshot-every", "20");
          WireClient client = WireClient.connect(server.port(), "operator")) {
        assertThat(instances(client, "cache").keySet()).as("the burst's acknowledged registrations, life %d", life)
            .containsAll(acknowledged);
        random.assertShown(client, "after kill " + (life - 1));
        if (life == 2) {
          assertSingleWritesBack(client);
          assertRestoredBeforeListening(server, data, acknowledged.size() + 49);
        }
        random.write(client);
        server.kill();
      }
    }
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(data)) {
      assertThat(files.map(path -> path.getFileName().toString()))
          .as("restarts read snapshots, not only the log").anyMatch(name -> name.matches("snapshot\\.\\d+_\\d+"));
    }
    try (ServerProcess server = ServerProcess.start(data, dir.resolve("last.log"));
        WireClient client = WireClient.connect(server.port(), "checker")) {
      random.assertShown(client, "after kill 3");
      assertThat(instances(client, "cache").keySet()).containsAll(acknowledged);
      assertThat(instances(client, "db")).hasSize(49);
    }
  }

  /**
   * At least {@code atLeast} durable values restored (the cut burst's acknowledged registrations
   * and the 49 of {@code db}), and the ports opened only once they were (the answers above, the
   * first this server gave, already held it all); a second server on the directory this one holds
   * exits at start saying why, and leaves this one unharmed.
   */
  private static void assertRestoredBeforeListening(ServerProcess server, Path data, int atLeast) throws Exception {
    String log = server.log();
    Matcher restored = RESTORED.matcher(log);
    assertThat(restored.find()).as(log).isTrue();
    assertThat(Integer.parseInt(restored.group(1))).as("durable values restored").isGreaterThanOrEqualTo(atLeast);
    assertThat(log.indexOf(restored.group())).as("restored before listening").isLessThan(log.indexOf("listening"));
    HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + server.httpPort() + "/ready")).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);

    assertThatThrownBy(() -> ServerProcess.start(data, data.resolveSibling("second-server.log")))
        .hasMessageContaining("the server exited at start")
        .hasMessageContaining("another process has already locked the storage directory");
    try (WireClient client = WireClient.connect(server.port(), "still-there")) {
      assertThat(instances(client, "db")).as("the first server, unharmed").hasSize(49);
    }
  }

  /** What was acknowledged one request at a time before the first kill, back after it. */
  private static void assertSingleWritesBack(WireClient client) {
    Map<String, InstanceBody> db = instances(client, "db");
    assertThat(db).hasSize(49).doesNotContainKey("127.0.0.50#5432#DEFAULT");
    assertThat(db.get("127.0.0.7#5432#DEFAULT").metadata()).isEqualTo(Map.of("role", "replica"));
    assertThat(db.get("127.0.0.7#5432#DEFAULT").ephemeral()).isFalse();
    assertThat(db.get("127.0.0.1#5432#DEFAULT").weight()).as("override").isEqualTo(5.0);

    ServiceDetail orders = client.call("admin.service.get", "{\"service\":\"orders\"}", ServiceDetail.class);
    assertThat(orders.protectThreshold()).isEqualTo(0.6);
    assertThat(orders.metadata()).isEqualTo(Map.of("team", "checkout"));
    assertThat(instances(client, "orders")).as("ephemeral instances are not kept").isEmpty();

    // The override of the ephemeral instance waits for it to register again.
    client.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.1.1\",\"port\":8080}}");
    assertThat(instances(client, "orders").get("127.0.1.1#8080#DEFAULT").enabled()).isFalse();
  }

  /**
   * Random persistent registrations, deregistrations and weight overrides of service
   * {@code weights}, and the model of what its view must show: the registered weight, unless an
   * override (which outlives deregistration) sets it.
   */
  private static final class RandomWrites {
    private final java.util.Random random;
    private final Map<String, Double> registeredWeight = new java.util.HashMap<>();
    private final Map<String, Double> overriddenWeight = new java.util.HashMap<>();

    RandomWrites(java.util.Random random) {
      this.random = random;
    }

    /** 120 acknowledged writes, then the view checked against the model. */
    void write(WireClient client) {
      for (int op = 0; op < 120; op++) {
        int host = 1 + random.nextInt(30);
        String instance = "\"instance\":{\"ip\":\"127.0.3." + host + "\",\"port\":5432";
        String id = "127.0.3." + host + "#5432#DEFAULT";
        int choice = random.nextInt(10);
        if (choice < 5) {
          double weight = 1 + random.nextInt(5);
          client.call("instance.register", "{\"service\":\"weights\",\"ephemeral\":false," + instance
              + ",\"weight\":" + weight + "}}");
          registeredWeight.put(id, weight);
        } else if (choice < 8) {
          client.call("instance.deregister", "{\"service\":\"weights\"," + instance + "}}");
          registeredWeight.remove(id);
        } else if (registeredWeight.containsKey(id)) {
          double weight = 10 + random.nextInt(5);
          client.call("admin.instance.patch", "{\"service\":\"weights\"," + instance + "},\"weight\":" + weight
              + "}");
          overriddenWeight.put(id, weight);
        }
      }
      assertShown(client, "as written");
    }

    void assertShown(WireClient client, String when) {
      Map<String, Double> shown = new java.util.TreeMap<>();
      instances(client, "weights").forEach((id, instance) -> shown.put(id, instance.weight()));
      Map<String, Double> expected = new java.util.TreeMap<>();
      registeredWeight.forEach((id, weight) -> expected.put(id, overriddenWeight.getOrDefault(id, weight)));
      assertThat(shown).as("the random writes' weights, %s", when).isEqualTo(expected);
    }
  }
}
