package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A client this project did not write, in another language: Node.js with rsocket-js, over
 * WebSocket ({@code interop/node/client.js}). It registers, heartbeats, queries, gets a contract
 * error, subscribes and sees a change. Needs Node.js; {@code .ci/run} installs it, and the test
 * installs the npm packages itself.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class NodeClientTest {
  private static final Path CLIENT = Path.of("..", "interop", "node");

  @Test
  void anRsocketJsClientRegistersQueriesAndSubscribesOverWebSocket() throws Exception {
    if (!available("node", "--version")) {
      // The README says the suite runs this client: without Node.js that is not true, so say so
      // loudly, unless whoever runs the suite chose to leave it out.
      // In CI (CI=true) there is no leaving it out: .ci/run installs Node.js, and a green CI run promises this ran.
      assumeTrue(!Boolean.getBoolean("registry.skipNodeClient") || Prerequisites.inCi(),
          "left out by -Dregistry.skipNodeClient=true");
      throw new AssertionError("Node.js is not installed, so the rsocket-js client cannot run: install Node.js "
          + "(.ci/run does)" + (Prerequisites.inCi() ? "; in CI (CI=true) it cannot be left out"
              : ", or leave this test out explicitly with -Dregistry.skipNodeClient=true"));
    }
    if (!Files.isDirectory(CLIENT.resolve("node_modules"))) {
      assertThat(run(120, "npm", "ci", "--no-audit", "--no-fund")).isZero();
    }
    try (ServerFixture fixture = new ServerFixture()) {
      Process node = new ProcessBuilder("node", "client.js",
          "ws://127.0.0.1:" + fixture.server().webSocketPort() + "/rsocket")
          .directory(CLIENT.toFile()).redirectErrorStream(true).start();
      assertThat(node.waitFor(30, TimeUnit.SECONDS)).isTrue();
      String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(node.exitValue()).as(output).isZero();
      assertThat(output)
          .contains("{\"step\":\"register\",\"value\":{\"instanceId\":\"127.0.0.5#8080#DEFAULT\"")
          .contains("\"metadata\":{\"runtime\":\"node\"}")
          .contains("{\"step\":\"invalid-register\",\"value\":{\"code\":\"INVALID_PARAM\","
              + "\"message\":\"instance.port must be between 1 and 65535\"}}")
          .contains("{\"step\":\"event\",\"value\":{\"type\":\"SNAPSHOT\"")
          .contains("{\"step\":\"event\",\"value\":{\"type\":\"UPSERT\"");
    }
  }

  private static boolean available(String... command) {
    try {
      return new ProcessBuilder(command).redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static int run(int seconds, String... command) throws Exception {
    Process process = new ProcessBuilder(command).directory(CLIENT.toFile()).inheritIO().start();
    if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return -1;
    }
    return process.exitValue();
  }
}
