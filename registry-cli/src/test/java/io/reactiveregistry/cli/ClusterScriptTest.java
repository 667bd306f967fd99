package io.reactiveregistry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Running a cluster" lines that drive {@code cluster/cluster.sh}, run as written
 * from the repository's root: three nodes start and agree on a leader, a killed node is reported
 * down and comes back, members started once the recording member has stopped (SIGTERM) start
 * from the class archive it wrote, and {@code clean} leaves nothing running. Needs the server jar, which
 * {@code mvn verify} builds before this module's tests.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class ClusterScriptTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  /** The fixed ports of n1 to n4 (RSocket, WebSocket, HTTP, Raft, Nacos HTTP and gRPC). */
  private static final int[] SCRIPT_PORTS = IntStream.range(0, 4)
      .flatMap(n -> IntStream.of(7070, 7071, 7080, 7090, 8848, 9848).map(port -> port + 100 * n)).toArray();
  /** Members that {@link #run} starts go without the leader warm-up once it has been checked. */
  private static boolean withoutLeaderWarmUp;

  /** Where the processes' output goes: removed after the test. */
  @TempDir
  Path outputs;

  @AfterEach
  void clean() throws Exception {
    run("cluster/cluster.sh clean");
    withoutLeaderWarmUp = false;
    Files.deleteIfExists(ROOT.resolve("registry.backup"));
  }

  /** One HTTP request to a member on loopback: the answer's body (a refusal's too). */
  private static String http(String method, int port, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10));
    request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void theReadmesClusterLinesRunAsWritten() throws Exception {
    List<String> lines = scriptLines();
    assertThat(lines).as("the README's cluster/cluster.sh lines")
        .containsExactly("cluster/cluster.sh start", "cluster/cluster.sh status", "cluster/cluster.sh kill n1",
            "cluster/cluster.sh restart n1", "cluster/cluster.sh rolling-restart", "cluster/cluster.sh clean",
            "cluster/cluster.sh backup registry.backup", "cluster/cluster.sh clean",
            "cluster/cluster.sh start --restore-from registry.backup", "cluster/cluster.sh add n4",
            "cluster/cluster.sh remove n1");
    for (int port : SCRIPT_PORTS) {
      try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        probe.setReuseAddress(true);
      } catch (IOException e) {
        throw new AssertionError("port " + port + " on 127.0.0.1, which cluster/cluster.sh uses, is taken: "
            + "stop what holds it (cluster/cluster.sh clean, if a cluster is left running)", e);
      }
    }
    assertThat(Files.exists(ROOT.resolve("reactive-registry-server/target/reactive-registry-server.jar")))
        .as("the server jar (mvn verify packages it before this module's tests)").isTrue();

    Result started = run(lines.get(0));
    assertThat(started.code()).as(started.output()).isZero();
    assertThat(started.output()).contains("cluster ready");

    Result status = run(lines.get(1));
    assertThat(status.code()).as(status.output()).isZero();
    assertThat(status.output().lines().filter(line -> line.matches("n[123]: \\{.*\"role\":\"leader\".*")))
        .as(status.output()).hasSize(1);
    assertThat(status.output().lines().filter(line -> line.contains("\"leader\":\"n"))).hasSize(3);
    // Members started with the defaults run Raft's leader code once (--raft-leader-warm-up), in the background.
    for (String member : List.of("n1", "n2", "n3")) {
      Path log = ROOT.resolve("cluster/run/" + member + ".log");
      await(member + "'s leader warm-up").atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(log).contains("Raft's leader code warmed up"));
    }
    // Checked there: the members the lines below start (eight more) go without it, as every other
    // cluster test's do (REGISTRY_RAFT_LEADER_WARM_UP, the setting's variable): it makes a planned
    // handover faster, not different, and costs each start 2-3 s of CPU on this suite's two cores.
    withoutLeaderWarmUp = true;

    // The README's replication tour: a watcher on n2 sees what is registered on n1, and its removal
    // once n1 is killed and the grace period has passed.
    List<String> tour = tourCommands();
    assertThat(tour).hasSize(2);
    Path watched = outputs.resolve("watcher.out");
    Path registered = outputs.resolve("registrant.out");
    Process watcher = background(tour.get(0), watched);
    Process registrant = background(tour.get(1), registered);
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(watched).contains("127.0.0.1#8080#DEFAULT"));

      Result killed = run(lines.get(2));
      assertThat(killed.code()).as(killed.output()).isZero();
      assertThat(run(lines.get(1)).output()).contains("n1: not running");
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(watched)
          .contains("{\"type\":\"REMOVE\""));
      assertThat(Files.readString(watched)).contains("\"instanceId\":\"127.0.0.1#8080#DEFAULT\"");
    } finally {
      watcher.destroyForcibly();
      registrant.destroyForcibly();
    }

    Result restarted = run(lines.get(3));
    assertThat(restarted.code()).as(restarted.output()).isZero();
    assertThat(restarted.output()).contains("n1 is back");
    assertThat(run(lines.get(1)).output().lines().filter(line -> line.contains("\"leader\":\"n"))).hasSize(3);

    Result rolled = run(lines.get(4));
    assertThat(rolled.code()).as(rolled.output()).isZero();
    assertThat(rolled.output()).contains("n1 restarted and rejoined", "n2 restarted and rejoined",
        "n3 restarted and rejoined", "rolling restart done");
    Result after = run(lines.get(1));
    assertThat(after.output().lines().filter(line -> line.contains("\"leader\":\"n"))).as(after.output()).hasSize(3);

    // The backup lines: a persistent instance written before the backup is in the new cluster
    // seeded from it, on every member.
    String persistent = "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.7\","
        + "\"port\":5432,\"metadata\":{\"health.check.enabled\":\"false\"}}}";
    assertThat(http("POST", 7180, "/api/v1/instance.register", persistent)).contains("127.0.0.7#5432#DEFAULT");
    Result backedUp = run(lines.get(6));
    assertThat(backedUp.code()).as(backedUp.output()).isZero();
    assertThat(backedUp.output()).contains("backup written to").contains("\"values\":");
    assertThat(run(lines.get(7)).code()).isZero();
    Result restored = run(lines.get(8));
    assertThat(restored.code()).as(restored.output()).isZero();
    // A member stopped with SIGTERM since the build (in the rolling restart at the latest) has
    // recorded the members' class archive, and members started since map it.
    Path archive = ROOT.resolve("reactive-registry-server/target/reactive-registry-server.jsa");
    assertThat(archive).as("the members' class archive").exists();
    for (String member : List.of("n1", "n2", "n3")) {
      String pid = Files.readString(ROOT.resolve("cluster/run/" + member + ".pid")).strip();
      assertThat(Files.readString(Path.of("/proc", pid, "maps"))).as(member + "'s mapped files")
          .contains(archive.toRealPath().toString());
    }
    for (int httpPort : new int[] {7080, 7180, 7280}) {
      assertThat(http("GET", httpPort, "/api/v1/services/public/DEFAULT_GROUP/db", null))
          .as("member on HTTP %d", httpPort).contains("127.0.0.7#5432#DEFAULT");
    }

    // The membership lines: n4 joins the restored cluster and is sent its state; n1 leaves it.
    Result added = run(lines.get(9));
    assertThat(added.code()).as(added.output()).isZero();
    assertThat(added.output()).contains("n4 joined").contains("127.0.0.1:7370");
    assertThat(http("GET", 7380, "/api/v1/services/public/DEFAULT_GROUP/db", null)).as("n4's view")
        .contains("127.0.0.7#5432#DEFAULT");
    Result removed = run(lines.get(10));
    assertThat(removed.code()).as(removed.output()).isZero();
    assertThat(removed.output()).contains("n1 removed");
    Result remaining = run(lines.get(1));
    assertThat(remaining.output()).contains("n1: not running");
    for (int httpPort : new int[] {7180, 7280, 7380}) {
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(http("GET", httpPort, "/api/v1/cluster",
          null)).as("member on HTTP %d", httpPort).contains("\"leader\":\"n").contains("\"id\":\"n4\"")
          .doesNotContain("\"id\":\"n1\""));
    }

    Result cleaned = run(lines.get(5));
    assertThat(cleaned.code()).as(cleaned.output()).isZero();
    assertThat(ROOT.resolve("cluster/run")).doesNotExist();
  }

  /**
   * A member that has exited is not running, even while its zombie waits to be collected: here
   * the member's parent never collects it (as a container's init may not for seconds), and
   * {@code kill -0} still succeeds on a zombie.
   */
  @Test
  void aMemberThatHasExitedIsNotRunningWhileItsZombieWaitsToBeCollected() throws Exception {
    Path pidFile = ROOT.resolve("cluster/run/n1.pid");
    Files.createDirectories(pidFile.getParent());
    // The "member" exits at once; its parent then becomes a sleep, which never collects it.
    Process parent = new ProcessBuilder("bash", "-c", "sleep 0.1 & echo $! > cluster/run/n1.pid; exec sleep 30")
        .directory(ROOT.toFile()).start();
    try {
      await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
      Path stat = Path.of("/proc", Files.readString(pidFile).strip(), "stat");
      await().atMost(Duration.ofSeconds(5))
          .until(() -> Files.readString(stat).replaceFirst("^.*\\) ", "").startsWith("Z"));

      Result status = run("cluster/cluster.sh status");
      assertThat(status.output()).contains("n1: not running");
    } finally {
      parent.destroyForcibly();
    }
  }

  /** The {@code cluster/cluster.sh} lines of the section's shell blocks, without their comments. */
  private static List<String> scriptLines() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int start = readme.indexOf("\n## Running a cluster\n");
    assertThat(start).as("README has '## Running a cluster'").isNotNegative();
    String section = readme.substring(start, readme.indexOf("\n## ", start + 5));
    List<String> lines = new ArrayList<>();
    for (String line : section.split("\n")) {
      if (line.startsWith("cluster/cluster.sh ")) {
        int comment = line.indexOf(" #");
        lines.add((comment < 0 ? line : line.substring(0, comment)).strip());
      }
    }
    return lines;
  }

  /**
   * The commands of the section's CLI block, each as a shell line that defines {@code CLI} first
   * (as the block does, from this build's classes), continuation lines joined and the trailing
   * {@code &} dropped (the test runs them in the background).
   */
  private static List<String> tourCommands() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int start = readme.indexOf("\n## Running a cluster\n");
    String section = readme.substring(start, readme.indexOf("\n## ", start + 5));
    int block = section.indexOf("```sh\nCLI=");
    assertThat(block).as("the section's CLI block").isNotNegative();
    String[] blockLines = section.substring(block + 6, section.indexOf("```", block + 6)).replace("\\\n", " ")
        .split("\n");
    // The CLI from this build's classes: the jar is packaged only after this module's tests run.
    assertThat(blockLines[0]).isEqualTo("CLI=\"java -jar registry-cli/target/registry-cli.jar\"");
    String definition = "CLI=\"" + Path.of(System.getProperty("java.home"), "bin", "java") + " -cp "
        + System.getProperty("java.class.path") + " " + RegistryCli.class.getName() + "\"";
    List<String> commands = new ArrayList<>();
    for (int i = 1; i < blockLines.length; i++) {
      String command = blockLines[i].strip();
      if (command.endsWith("&")) {
        commands.add(definition + "; " + command.substring(0, command.length() - 1).strip());
      }
    }
    return commands;
  }

  private static Process background(String line, Path output) throws IOException {
    // exec: the JVM takes the shell's place, so that destroying the process stops the CLI itself.
    return new ProcessBuilder("bash", "-c", line.replace("; $CLI", "; exec $CLI"))
        .directory(ROOT.toFile()).redirectErrorStream(true).redirectOutput(output.toFile()).start();
  }

  private record Result(int code, String output) {}

  private static Result run(String line) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("bash", "-c", line).directory(ROOT.toFile()).redirectErrorStream(true);
    if (withoutLeaderWarmUp) {
      builder.environment().put("REGISTRY_RAFT_LEADER_WARM_UP", "false");
    }
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as(line).isTrue();
    return new Result(process.exitValue(), output);
  }
}
