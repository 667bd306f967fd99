package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.storage.StorageConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * An in-process server on a real Raft log, with BlockHound watching the event loops: durable
 * writes are answered once committed, pushed to subscribers, back after a restart, and refused
 * cleanly, changing nothing, when storage cannot take more.
 */
class DurableEndToEndTest {
  @TempDir
  Path dir;

  private static String persistent(String ip) {
    return "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"" + ip + "\",\"port\":5432}}";
  }

  @Test
  void persistentRegistrationsAreAnsweredPushedAndBackAfterARestart() {
    ServerConfig config = ServerConfig.ephemeralLoopback().withStorage(StorageConfig.onDisk(dir));
    try (ServerFixture fixture = new ServerFixture(config)) {
      List<String> pushed = new CopyOnWriteArrayList<>();
      Disposable watch = fixture.connect("watcher").stream("service.subscribe", "{\"service\":\"db\"}")
          .subscribe(pushed::add, error -> pushed.add("ERROR " + error));
      WireClient operator = fixture.connect("operator");

      List<RegisterResult> answers = Flux.range(1, 40)
          .flatMap(i -> operator.request("instance.register", persistent("127.0.0." + i)), 16)
          .map(json -> io.reactiveregistry.protocol.codec.JsonCodec.json().decode(json, RegisterResult.class))
          .collectList()
          .block(Duration.ofSeconds(10));

      assertThat(answers).hasSize(40);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        String all = String.join("\n", pushed);
        for (RegisterResult answer : answers) {
          assertThat(all).contains("\"instanceId\":\"" + answer.instanceId() + "\"");
        }
      });
      assertThat(pushed.get(0)).contains("SNAPSHOT"); // the empty view; then the service appears: SNAPSHOT
      String metrics = fixture.server().meters().scrape();
      // 40 registrations, and the revisions reserved at start.
      assertThat(metrics).contains("registry_storage_commit_seconds_count 41\n").contains("registry_storage_pending 0.0");
      watch.dispose();
    }

    try (ServerFixture restarted = new ServerFixture(config)) {
      ServiceSnapshot db = restarted.connect("reader").call("service.query", "{\"service\":\"db\"}",
          ServiceSnapshot.class);
      assertThat(db.ephemeral()).isFalse();
      assertThat(db.instances()).hasSize(40);
      assertThat(db.revision()).as("revisions continue after a restart").isGreaterThanOrEqualTo(40);
    }
  }

  @Test
  void aRestartedServerNeverHandsOutARevisionAClientMayHaveSeen() {
    ServerConfig config = ServerConfig.ephemeralLoopback().withStorage(StorageConfig.onDisk(dir));
    long seen;
    try (ServerFixture fixture = new ServerFixture(config)) {
      WireClient app = fixture.connect("app");
      // Ephemeral changes only: nothing of them is in the log, yet clients saw their revisions.
      for (int i = 1; i <= 5; i++) {
        app.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0." + i
            + "\",\"port\":8080}}");
      }
      seen = app.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).revision();
      assertThat(seen).isEqualTo(5);
    }
    long afterFirstRestart;
    try (ServerFixture restarted = new ServerFixture(config)) {
      RegisterResult next = restarted.connect("app").call("instance.register",
          "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":8080}}", RegisterResult.class);
      afterFirstRestart = next.revision();
      assertThat(afterFirstRestart).isGreaterThan(seen);
    }
    try (ServerFixture again = new ServerFixture(config)) {
      assertThat(again.connect("reader").call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class)
          .revision()).isGreaterThan(afterFirstRestart);
    }
  }

  @Test
  void whenStorageCannotTakeMoreDurableWritesAreRefusedAndNothingElseIsTouched() {
    StorageConfig small = new StorageConfig(dir, 0, 10_000, 4); // at most 4 commands waiting for the log
    try (ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withStorage(small))) {
      WireClient client = fixture.connect("app");
      List<WireClient> writers = List.of(fixture.connect("w1"), fixture.connect("w2"), fixture.connect("w3"),
          fixture.connect("w4"));

      // A burst of persistent registrations fills the real queue: the ones past it are refused.
      List<String> outcomes = Flux.range(1, 1_000)
          .flatMap(i -> writers.get(i % writers.size()).request("instance.register",
                  "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.1." + (i % 250) + "\","
                  + "\"port\":" + (5000 + i) + "}}")
              .map(ok -> "ok " + i)
              .onErrorResume(error -> reactor.core.publisher.Mono.just(
                  "refused " + i + " " + WireClient.errorOf(error).code() + " " + WireClient.errorOf(error).message())),
              256)
          .collectList()
          .block(Duration.ofSeconds(60));
      List<String> refused = outcomes.stream().filter(o -> o.startsWith("refused")).toList();
      long accepted = outcomes.size() - refused.size();
      assertThat(refused).as("some refused").isNotEmpty()
          .allSatisfy(o -> assertThat(o).contains("LIMIT_EXCEEDED").contains("storage").contains("retry"));
      assertThat(accepted).as("some accepted").isPositive();
      // Exactly the accepted ones are there: a refusal changed nothing.
      assertThat(client.call("service.query", "{\"service\":\"db\"}", ServiceSnapshot.class).instances())
          .hasSize((int) accepted);
      assertThat(writers).noneMatch(WireClient::isDisposed);

      client.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");
      assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
          .hasSize(1);
      // Ephemeral work goes on (that it never waits on storage: storage.StorageFailureEndToEndTest).
      assertThat(client.call("instance.deregister",
          "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"))
          .contains("\"removed\":true");
      assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
          .isEmpty();
    }
  }
}
