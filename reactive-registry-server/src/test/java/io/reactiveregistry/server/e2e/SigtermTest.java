package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server as a separate process, stopped with SIGTERM as Kubernetes or systemd would. */
class SigtermTest {
  @TempDir
  Path dir;

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void sigtermEndsTheServerWithinTenSecondsAndSubscribersSeeTheirStreamsComplete() throws Exception {
    int tcp = freePort();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path log = dir.resolve("server.log");
    Process server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        "io.reactiveregistry.server.Main", "--host", "127.0.0.1", "--port", Integer.toString(tcp),
        "--ws-port", Integer.toString(freePort()), "--http-port", Integer.toString(freePort()),
        "--data-dir", dir.resolve("data").toString(), "--raft-port", Integer.toString(freePort()))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(log).contains("listening"));
      WireClient watcher = WireClient.connect(tcp, "watcher");
      List<String> signals = new CopyOnWriteArrayList<>();
      watcher.stream("service.subscribe", "{\"service\":\"orders\"}")
          .subscribe(e -> signals.add("event"), error -> signals.add("error " + error), () -> signals.add("complete"));
      await().atMost(Duration.ofSeconds(5)).until(() -> signals.contains("event"));

      long start = System.nanoTime();
      server.destroy(); // SIGTERM
      assertThat(server.waitFor(10, TimeUnit.SECONDS)).as("exited within 10 s").isTrue();

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      await().atMost(Duration.ofSeconds(5)).until(() -> signals.size() > 1);
      assertThat(signals).containsExactly("event", "complete");
      assertThat(Files.readString(log)).contains("shutting down");
      watcher.close();
    } finally {
      server.destroyForcibly();
    }
  }
}
