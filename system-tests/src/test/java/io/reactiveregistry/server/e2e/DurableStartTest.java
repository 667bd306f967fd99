package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * How a durable server process starts: it restores everything before it opens a port or says it
 * is ready, and a second server pointed at a data directory in use refuses to start.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class DurableStartTest {
  private static final Pattern RESTORED = Pattern.compile("restored (\\d+) durable values");

  @TempDir
  Path dir;

  @Test
  void afterAKillThePortsOpenOnlyOnceEverythingIsRestoredAndASecondServerOnTheDirectoryExitsSayingWhy() throws Exception {
    Path data = dir.resolve("data");
    int count = 2_000;
    try (ServerProcess server = ServerProcess.start(data, dir.resolve("first.log"))) {
      List<WireClient> clients = List.of(WireClient.connect(server.port(), "a"), WireClient.connect(server.port(), "b"));
      Flux.range(0, count)
          .flatMap(i -> clients.get(i % 2).request("instance.register", "{\"service\":\"db\",\"ephemeral\":false,"
              + "\"instance\":{\"ip\":\"127.0.2." + (i % 250) + "\",\"port\":" + (10_000 + i) + "}}"), 64)
          .blockLast(Duration.ofSeconds(60));
      clients.forEach(WireClient::close);
    } // SIGKILL

    try (ServerProcess server = ServerProcess.start(data, dir.resolve("second.log"))) {
      String log = server.log();
      Matcher restored = RESTORED.matcher(log);
      assertThat(restored.find()).as(log).isTrue();
      assertThat(Integer.parseInt(restored.group(1))).isGreaterThanOrEqualTo(count);
      assertThat(log.indexOf("restored")).as("restored before listening").isLessThan(log.indexOf("listening"));
      // The first answers the server gives already hold everything.
      HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.httpPort() + "/ready")).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).isEqualTo(200);
      try (WireClient client = WireClient.connect(server.port(), "reader")) {
        assertThat(client.call("service.query", "{\"service\":\"db\"}", ServiceSnapshot.class).instances())
            .hasSize(count);
      }

      // A second server on the directory this one holds exits at start, saying why (here rather
      // than in a test of its own: a server process is the dearest thing the suite starts).
      assertThatThrownBy(() -> ServerProcess.start(data, dir.resolve("third.log")))
          .hasMessageContaining("the server exited at start")
          .hasMessageContaining("another process has already locked the storage directory");
      // The first one is unharmed.
      try (WireClient client = WireClient.connect(server.port(), "still-there")) {
        assertThat(client.call("service.query", "{\"service\":\"db\"}", ServiceSnapshot.class).instances())
            .hasSize(count);
      }
    }
  }
}
