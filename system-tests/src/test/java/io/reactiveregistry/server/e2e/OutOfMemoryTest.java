package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The measured case of the hardening issue, with the quotas that now prevent it lifted: a client
 * fills a small heap with durable metadata. The server, run as the README runs it
 * ({@code -XX:+ExitOnOutOfMemoryError}), exits with status 3 so that a supervisor restarts it,
 * instead of going on with a dead log worker; until then every answer is the contract's JSON.
 * ({@code FatalErrorsTest} covers the server's own exit, for errors the JVM flag does not see.)
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class OutOfMemoryTest {
  @TempDir
  Path dir;

  @Test
  void aServerOutOfMemoryExitsWithStatusThreeAndAnswersOnlyJsonUntilThen() throws Exception {
    try (ServerProcess server = ServerProcess.start("128m", dir.resolve("data"), dir.resolve("server.log"),
        "--max-durable-metadata-bytes", "100000000000", "--max-durable-metadata-bytes-per-namespace", "100000000000",
        "--max-persistent-instances", "1000000", "--max-persistent-instances-per-namespace", "1000000")) {
      List<WireClient> clients = IntStream.range(0, 4).mapToObj(i -> WireClient.connect(server.port(), "filler-" + i))
          .toList();
      String metadata = "x".repeat(15 * 1024);
      Set<String> errors = ConcurrentHashMap.newKeySet();
      Flux.range(0, 20_000)
          .takeWhile(i -> server.alive())
          .flatMap(i -> clients.get(i % 4).request("instance.register",
                  "{\"service\":\"db-" + i / 100 + "\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.5\",\"port\":"
                      + (1 + i % 100) + ",\"metadata\":{\"k\":\"" + metadata + "\"}}}")
              .then()
              .onErrorResume(error -> {
                errors.add(String.valueOf(error.getMessage()));
                return Mono.empty();
              }), 16)
          .blockLast(Duration.ofSeconds(120));

      OptionalInt status = server.exitStatus(Duration.ofSeconds(60));
      assertThat(status).as("the server exited").isPresent();
      assertThat(status.getAsInt()).isEqualTo(3);
      assertThat(server.log()).contains("OutOfMemoryError");
      for (String message : errors) {
        if (message != null && message.startsWith("{")) {
          assertThat(JsonCodec.json().decode(message, ErrorBody.class).code()).isNotBlank();
        } else {
          // The connection closing as the process exits is not an answer.
          assertThat(message).as("a non-JSON error reached the client").doesNotContain("heap space");
        }
      }
    }
  }
}
