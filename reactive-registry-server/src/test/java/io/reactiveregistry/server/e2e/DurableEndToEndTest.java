package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.ErrorBody;
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
    StorageConfig full = new StorageConfig(dir, 0, 10_000, 0); // no room for a single waiting change
    try (ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withStorage(full))) {
      WireClient client = fixture.connect("app");

      ErrorBody refused = client.error("instance.register", persistent("127.0.0.1"));
      assertThat(refused.code()).isEqualTo("LIMIT_EXCEEDED");
      assertThat(refused.message()).contains("storage").contains("retry");
      assertThat(client.error("admin.service.create", "{\"service\":\"orders\"}").code())
          .isEqualTo("LIMIT_EXCEEDED");

      // Nothing changed, the connection is still open, and ephemeral work goes on.
      assertThat(client.call("service.query", "{\"service\":\"db\"}", ServiceSnapshot.class).instances()).isEmpty();
      client.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");
      assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
          .hasSize(1);
      // Deregistering an ephemeral instance never touches storage, so storage being full cannot refuse it.
      assertThat(client.call("instance.deregister",
          "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"))
          .contains("\"removed\":true");
      assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
          .isEmpty();
    }
  }
}
