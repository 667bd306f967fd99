package io.reactiveregistry.sample.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The README's "A gateway fed by push" lines, run as written against the jar the build made: its
 * {@code java -jar} line as a process of its own, then its {@code curl} line. Changed: the ports
 * (the registry runs in this JVM on a free port, and the gateway's 8090 becomes a free one), and
 * the greeting instance the README has running from the Spring sample is a stand-in answering
 * {@code GET /greeting} as it does, registered as {@code greeting}.
 */
class GatewayReadmeIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

  private final List<Process> processes = new ArrayList<>();

  /** Where the processes' output goes: removed after the test. */
  @TempDir
  Path logs;

  @AfterEach
  void stop() {
    processes.forEach(Process::destroyForcibly);
  }

  @Test
  void theReadmesGatewayLinesRouteToAGreetingInstance() throws Exception {
    List<String> lines = shellLines(section(Files.readString(ROOT.resolve("README.md"))));
    String start = lines.stream().filter(line -> line.startsWith("java -jar samples/gateway/")).findFirst()
        .orElseThrow();
    String curl = lines.stream().filter(line -> line.startsWith("curl ")).findFirst().orElseThrow();
    assertThat(curl).contains(":8090/greeting/greeting");

    RegistryServer registry = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(30));
    DisposableServer greeting = HttpServer.create().host("127.0.0.1").port(0)
        .route(routes -> routes.get("/greeting", (request, response) -> response.sendString(
            Mono.just("hello from greeting on port " + request.hostPort()))))
        .bindNow();
    RegistryClient owner = RegistryClient.builder().servers("tcp://127.0.0.1:" + registry.tcpPort())
        .clientName("greeting").build();
    try {
      owner.register(ServiceName.of("greeting"), InstanceBody.of("127.0.0.1", greeting.port(), null, 1.0, Map.of()))
          .block(Duration.ofSeconds(10));
      String gatewayPort = String.valueOf(freePort());
      List<String> args = new ArrayList<>(Arrays.asList(start.split(" ")));
      args.add("--server.port=" + gatewayPort);
      args.add("--reactive-registry.servers=tcp://127.0.0.1:" + registry.tcpPort());
      Path log = Files.createTempFile(logs, "gateway-", ".log");
      processes.add(new ProcessBuilder(args).directory(ROOT.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start());
      await().atMost(WAIT).until(() -> Files.readString(log).contains("Started GatewayMain"));

      String call = curl.replaceFirst("#.*$", "").strip().replace(":8090/", ":" + gatewayPort + "/");
      await().atMost(WAIT).untilAsserted(() ->
          assertThat(run(call)).contains("hello from greeting on port " + greeting.port()));
    } finally {
      owner.closeAndWait();
      greeting.disposeNow();
      registry.disposeNow(Duration.ofSeconds(10));
    }
  }

  private static String run(String line) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(line.split(" ")).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    return out;
  }

  private static String section(String readme) {
    int start = readme.indexOf("### A gateway fed by push");
    assertThat(start).as("README.md's gateway section").isNotNegative();
    return readme.substring(start, readme.indexOf("\n## ", start));
  }

  /** The lines of the section's {@code sh} blocks, comments left out. */
  private static List<String> shellLines(String section) {
    List<String> lines = new ArrayList<>();
    Matcher block = Pattern.compile("```sh\n(.*?)```", Pattern.DOTALL).matcher(section);
    while (block.find()) {
      block.group(1).lines().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
          .forEach(lines::add);
    }
    return lines;
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
