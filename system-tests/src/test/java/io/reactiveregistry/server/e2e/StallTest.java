package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * The server process is stopped (SIGSTOP) for longer than its instances' delete timeout while
 * their heartbeats keep arriving in its sockets; when it resumes, it must read them before it
 * judges anyone: no instance is pushed unhealthy or removed.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class StallTest {
  @TempDir
  Path dir;

  @Test
  void afterTheServerProcessWasStoppedNoHeartbeatingInstanceIsPushedUnhealthy() throws Exception {
    // Self-preservation off: only the stall handling can save the instances.
    try (ServerProcess server = ServerProcess.start(dir.resolve("data"), dir.resolve("server.log"),
        "--self-preservation", "false")) {
      WireClient app = WireClient.connect(server.port(), "app");
      WireClient watcher = WireClient.connect(server.port(), "watcher");
      // A heartbeat every 200 ms against a 3 s timeout: a busy machine that delays heartbeats by a
      // second or two does not turn anyone unhealthy before the stall; only the stall could.
      String timings = "\"metadata\":{\"preserved.heart.beat.interval\":\"200\",\"preserved.heart.beat.timeout\":"
          + "\"3000\",\"preserved.ip.delete.timeout\":\"5000\"}";
      Disposable heartbeats = Flux.interval(Duration.ofMillis(200))
          .subscribe(tick -> app.rsocket().fireAndForget(WireClient.payload("instance.heartbeat", "{}")).subscribe());
      for (int i = 1; i <= 20; i++) {
        app.call("instance.register", Registrations.registration("orders", "127.0.0." + i, 8080, timings));
      }
      List<ServiceEvent> events = new CopyOnWriteArrayList<>();
      Disposable watch = watcher.stream("service.subscribe", "{\"service\":\"orders\"}")
          .map(json -> JsonCodec.json().decode(json, ServiceEvent.class)).subscribe(events::add);
      await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
      try {
        await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> true);

        server.signal("STOP"); // 7 s: past the delete timeout, heartbeats piling up in the socket
        await().pollDelay(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(10)).until(() -> true);
        server.signal("CONT");

        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
        assertThat(events).as("no instance pushed unhealthy or removed").allSatisfy(e -> {
          assertThat(e.type()).isNotEqualTo("REMOVE");
          if (e.instance() != null) {
            assertThat(e.instance().healthy()).isTrue();
          }
        });
        assertThat(watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
            .hasSize(20).allMatch(InstanceBody::healthy);
        assertThat(server.log()).contains("the server did not run for");
      } finally {
        heartbeats.dispose();
        watch.dispose();
      }
    }
  }
}
