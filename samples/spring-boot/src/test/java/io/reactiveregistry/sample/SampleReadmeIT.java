package io.reactiveregistry.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Spring sample, run as the README writes it, against the jar the build made: each
 * {@code java -jar} line as a process of its own (a terminal), its {@code curl} line, and the
 * operator's {@code $CLI} line of "What to watch". The test changes only ports: the registry runs
 * in this JVM on a free port (given to each application as {@code --reactive-registry.servers}),
 * and 8080, 8081 and 8082 become free ports.
 */
class SampleReadmeIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final Pattern ANSWER = Pattern.compile("frontend called: hello from greeting on port (\\d+)");

  private final List<Process> processes = new ArrayList<>();
  private final Map<String, String> ports = new HashMap<>();
  private RegistryServer registry;

  /** Where the processes' output goes: removed after the test. */
  @TempDir
  Path logDir;

  @AfterEach
  void stop() {
    processes.forEach(Process::destroyForcibly);
    if (registry != null) {
      registry.disposeNow(Duration.ofSeconds(10));
    }
  }

  @Test
  void theReadmesSampleLinesRunAndDoWhatItSays() throws Exception {
    String section = section(Files.readString(ROOT.resolve("README.md")));
    List<String> commands = shellLines(section);
    assertThat(commands).as("the sample's shell lines").anyMatch(line -> line.startsWith("./mvnw"))
        .anyMatch(line -> line.startsWith("java -jar reactive-registry-server/target/reactive-registry-server.jar"));
    registry = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(30));

    Map<String, Path> logs = new HashMap<>();
    Map<String, Process> terminals = new HashMap<>();
    for (String line : commands) {
      if (line.startsWith("java -jar samples/")) {
        List<String> args = new ArrayList<>(Arrays.asList(withFreePorts(line).split(" ")));
        args.add("--reactive-registry.servers=tcp://127.0.0.1:" + registry.tcpPort());
        Path log = Files.createTempFile(logDir, "sample-", ".log");
        Process process = new ProcessBuilder(args).directory(ROOT.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start();
        processes.add(process);
        terminals.put(line, process);
        logs.put(line, log);
      }
    }
    assertThat(logs).as("two greeting lines and a frontend line").hasSize(3);
    for (Path log : logs.values()) {
      await().atMost(WAIT).until(() -> Files.readString(log).contains("Started SampleMain"));
    }
    String curl = commands.stream().filter(line -> line.startsWith("curl ")).findFirst().orElseThrow();
    String firstGreeting = ports.get("8081");
    String secondGreeting = ports.get("8082");

    Set<String> reached = new HashSet<>();
    await().atMost(WAIT).until(() -> {
      reached.add(greetingPort(run(withFreePorts(curl))));
      return reached.size() == 2;
    });
    assertThat(reached).containsExactlyInAnyOrder(firstGreeting, secondGreeting);

    // "An operator takes an instance out": 8081 disabled, every call goes to 8082.
    String patch = withFreePorts(operatorLine(section));
    assertThat(operator(patch)).contains("\"enabled\":false");
    // The push reaches the frontend's load balancer within milliseconds (measured in RESULTS.md); each
    // curl here is a process of its own, so the wait is bounded by the suite's, not by a second. Once
    // it arrived, no call goes to the disabled instance:
    await().atMost(WAIT).until(() -> greetingPort(run(withFreePorts(curl))).equals(secondGreeting));
    for (int i = 0; i < 10; i++) {
      assertThat(greetingPort(run(withFreePorts(curl)))).isEqualTo(secondGreeting);
    }
    // '"enabled":true brings it back.'
    assertThat(operator(patch.replace("\"enabled\":false", "\"enabled\":true"))).contains("\"enabled\":true");

    // "Stop one greeting instance": deregistered before the graceful shutdown, and no call fails.
    String stopped = commands.stream().filter(line -> line.contains("greeting --server.port=8082")).findFirst()
        .orElseThrow();
    terminals.get(stopped).destroy();
    List<String> afterStop = new ArrayList<>();
    while (terminals.get(stopped).isAlive() || afterStop.size() < 10) {
      afterStop.add(greetingPort(run(withFreePorts(curl))));
    }
    assertThat(afterStop.subList(afterStop.size() - 10, afterStop.size())).containsOnly(firstGreeting);
    String stoppedLog = Files.readString(logs.get(stopped));
    assertThat(stoppedLog).contains("deregistered 127.0.0.1#" + secondGreeting + "#DEFAULT");
    assertThat(stoppedLog.indexOf("deregistered 127.0.0.1#")).isLessThan(stoppedLog.indexOf("Commencing graceful"));

    // "Stop the registry and start it again": calls go on from the last views; health DOWN, then UP.
    int registryPort = registry.tcpPort();
    registry.disposeNow(Duration.ofSeconds(10));
    String health = "curl http://127.0.0.1:" + firstGreeting + "/actuator/health";
    await().atMost(WAIT).until(() -> run(health).contains("\"reactiveRegistry\":{\"details\":{\"connected\":false"));
    for (int i = 0; i < 5; i++) {
      assertThat(greetingPort(run(withFreePorts(curl)))).isEqualTo(firstGreeting);
    }
    registry = RegistryServer.start(ServerConfig.ephemeralLoopback().withTcpPort(registryPort))
        .block(Duration.ofSeconds(30));
    await().atMost(WAIT).until(() -> run(health).contains("\"connected\":true,\"registrations\":1,"
        + "\"registrationsActive\":1},\"status\":\"UP\""));
    assertThat(greetingPort(run(withFreePorts(curl)))).isEqualTo(firstGreeting);
  }

  /** Runs an operator's {@code $CLI} line against the test's registry; its output. */
  private String operator(String line) throws IOException, InterruptedException {
    String cli = "java -jar registry-cli/target/registry-cli.jar --target tcp://127.0.0.1:" + registry.tcpPort();
    List<String> args = new ArrayList<>(Arrays.asList(cli.split(" ")));
    args.addAll(cliArgs(line.replace("$CLI ", "")));
    Process process = new ProcessBuilder(args).directory(ROOT.toFile()).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(line + "\n" + out).isZero();
    return out;
  }

  /** The "What to watch" line that disables an instance, as the README writes it. */
  private static String operatorLine(String section) {
    Matcher line = Pattern.compile("`(\\$CLI --route admin\\.instance\\.patch [^`]*)`").matcher(section);
    assertThat(line.find()).as("the operator's $CLI line").isTrue();
    return line.group(1);
  }

  /** {@code --route R --data 'JSON'} as a process's arguments, the quotes as a shell takes them. */
  private static List<String> cliArgs(String line) {
    int quote = line.indexOf('\'');
    List<String> args = new ArrayList<>(Arrays.asList(line.substring(0, quote).trim().split(" ")));
    args.add(line.substring(quote + 1, line.lastIndexOf('\'')));
    return args;
  }

  private String withFreePorts(String line) {
    Matcher port = Pattern.compile("(?<=:|=)(808[0-2])\\b").matcher(line);
    StringBuilder out = new StringBuilder();
    while (port.find()) {
      port.appendReplacement(out, ports.computeIfAbsent(port.group(1), p -> String.valueOf(freePort())));
    }
    return port.appendTail(out).toString();
  }

  private static String greetingPort(String answer) {
    Matcher matcher = ANSWER.matcher(answer);
    assertThat(matcher.find()).as(answer).isTrue();
    return matcher.group(1);
  }

  private static String run(String line) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(line.split(" ")).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    return out;
  }

  private static String section(String readme) {
    int start = readme.indexOf("### The sample: two WebFlux applications and the registry");
    assertThat(start).as("README.md's sample section").isNotNegative();
    int nextSection = readme.indexOf("\n## ", start);
    int nextSubsection = readme.indexOf("\n### ", start + 1); // the gateway sample's, run by its own test
    return readme.substring(start, nextSubsection > 0 && nextSubsection < nextSection ? nextSubsection : nextSection);
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
