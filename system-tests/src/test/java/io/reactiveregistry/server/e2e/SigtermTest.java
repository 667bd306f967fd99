package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server as a separate process, stopped with SIGTERM as Kubernetes or systemd would. */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class SigtermTest {
  @TempDir
  Path dir;

  @Test
  void sigtermEndsTheServerWithinTenSecondsAndSubscribersSeeTheirStreamsComplete() throws Exception {
    ServerProcess server = ServerProcess.start(dir.resolve("data"), dir.resolve("server.log"));
    try {
      WireClient watcher = WireClient.connect(server.port(), "watcher");
      List<String> signals = new CopyOnWriteArrayList<>();
      watcher.stream("service.subscribe", "{\"service\":\"orders\"}")
          .subscribe(e -> signals.add("event"), error -> signals.add("error " + error), () -> signals.add("complete"));
      await().atMost(Duration.ofSeconds(5)).until(() -> signals.contains("event"));

      assertThat(server.terminate(Duration.ofSeconds(10))).as("exited within 10 s of SIGTERM").isTrue();

      await().atMost(Duration.ofSeconds(5)).until(() -> signals.size() > 1);
      assertThat(signals).containsExactly("event", "complete");
      assertThat(server.log()).contains("shutting down");
      server.assertNothingBlocked(); // the graceful stop included
      watcher.close();
    } finally {
      server.kill();
    }
  }
}
