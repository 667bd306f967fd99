package io.reactiveregistry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.storage.StorageConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * registry-cli against a real server: each interaction, exit codes and where errors go. The
 * README's own lines are run by {@link ReadmeTourTest}.
 */
class RegistryCliTest {
  private final RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(10));
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @AfterEach
  void stop() {
    server.disposeNow(Duration.ofSeconds(5));
  }

  private int run(String... args) {
    return runAgainst(server, args);
  }

  private int runAgainst(RegistryServer target, String... args) {
    String[] withTarget = new String[args.length + 2];
    withTarget[0] = "--target";
    withTarget[1] = "tcp://127.0.0.1:" + target.tcpPort();
    System.arraycopy(args, 0, withTarget, 2, args.length);
    return execute(withTarget);
  }

  private int execute(String... args) {
    out.reset();
    err.reset();
    return new CommandLine(new RegistryCli(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8))).execute(args);
  }

  @Test
  void aWebSocketTargetIsDialledOverWebSocket() {
    // Registered and held over WebSocket: the server names the connection's transport in its trace.
    assertThat(execute("--target", "ws://127.0.0.1:" + server.webSocketPort() + "/rsocket", "--route",
        "instance.register", "--data", "{\"service\":\"postgres\",\"ephemeral\":false,"
            + "\"instance\":{\"ip\":\"127.0.0.9\",\"port\":5432}}")).isZero();
    assertThat(out()).contains("\"instanceId\":\"127.0.0.9#5432#DEFAULT\"");
    // Without a path, the server's /rsocket.
    assertThat(execute("--target", "ws://127.0.0.1:" + server.webSocketPort(), "--route", "service.query", "--data",
        "{\"service\":\"postgres\"}")).isZero();
    assertThat(out()).contains("\"ip\":\"127.0.0.9\"");
    // The TCP port does not speak WebSocket: a ws:// target there fails rather than falling back to TCP.
    assertThat(execute("--target", "ws://127.0.0.1:" + server.tcpPort() + "/rsocket", "--route", "service.query",
        "--data", "{\"service\":\"postgres\"}")).isNotZero();
  }

  @Test
  void anUnknownSchemeIsAUsageError() {
    assertThat(execute("--target", "http://127.0.0.1:" + server.tcpPort(), "--route", "service.query")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--target: unknown scheme in http://127.0.0.1:")
        .contains("[tcp, tls, ws, wss]");
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void registersAPersistentInstanceAndQueriesIt() {
    assertThat(run("--route", "instance.register", "--data",
        "{\"service\":\"postgres\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.9\",\"port\":5432}}")).isZero();
    assertThat(out()).contains("\"instanceId\":\"127.0.0.9#5432#DEFAULT\"");

    assertThat(run("--route", "service.query", "--data", "{\"service\":\"postgres\"}")).isZero();
    assertThat(out()).contains("\"ip\":\"127.0.0.9\"");
  }

  @Test
  void aPersistentInstanceIsStillThereAfterTheServerRestarts(@TempDir Path data) {
    ServerConfig durable = ServerConfig.ephemeralLoopback().withStorage(StorageConfig.onDisk(data));
    RegistryServer first = RegistryServer.start(durable).block(Duration.ofSeconds(30));
    assertThat(runAgainst(first, "--route", "instance.register", "--data",
        "{\"service\":\"postgres\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.9\",\"port\":5432}}"))
        .isZero();
    first.disposeNow(Duration.ofSeconds(10));

    RegistryServer second = RegistryServer.start(durable).block(Duration.ofSeconds(30));
    try {
      assertThat(runAgainst(second, "--route", "service.query", "--data", "{\"service\":\"postgres\"}")).isZero();
      assertThat(out()).contains("\"ip\":\"127.0.0.9\"");
    } finally {
      second.disposeNow(Duration.ofSeconds(10));
    }
  }

  @Test
  void streamsASubscriptionAndFiresHeartbeats() {
    // A heartbeat naming an instance the server does not have re-creates it: the server counts
    // the heartbeat and the registration it made.
    assertThat(run("--route", "instance.heartbeat", "--fnf", "--data",
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}")).isZero();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
        server.meters().get("registry.heartbeats").counter().count() == 1
            && server.meters().get("registry.changes").tag("cause", "REGISTER").counter().count() == 1);
    assertThat(run("--route", "service.subscribe", "--stream", "--take", "1", "--data", "{\"service\":\"orders\"}"))
        .isZero();
    assertThat(out()).startsWith("{\"type\":\"SNAPSHOT\"");
  }

  @Test
  void aContractErrorGoesToStderrWithExitCodeOne() {
    assertThat(run("--route", "instance.register", "--data", "{\"service\":\"orders\"}")).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("\"code\":\"INVALID_PARAM\"")
        .contains("instance is required");
  }
}
