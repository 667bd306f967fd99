package io.reactiveregistry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "Running a cluster" lines that drive {@code cluster/cluster.sh}, run as written
 * from the repository's root: three nodes start and agree on a leader, a killed node is reported
 * down and comes back, and {@code clean} leaves nothing running. Needs the server jar, which
 * {@code mvn verify} builds before this module's tests.
 */
class ClusterScriptTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @AfterEach
  void clean() throws Exception {
    run("cluster/cluster.sh clean");
  }

  @Test
  void theReadmesClusterLinesRunAsWritten() throws Exception {
    List<String> lines = scriptLines();
    assertThat(lines).as("the README's cluster/cluster.sh lines")
        .containsExactly("cluster/cluster.sh start", "cluster/cluster.sh status", "cluster/cluster.sh kill n1",
            "cluster/cluster.sh restart n1", "cluster/cluster.sh clean");
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

    Result killed = run(lines.get(2));
    assertThat(killed.code()).as(killed.output()).isZero();
    assertThat(run(lines.get(1)).output()).contains("n1: not running");

    Result restarted = run(lines.get(3));
    assertThat(restarted.code()).as(restarted.output()).isZero();
    assertThat(restarted.output()).contains("n1 is back");
    assertThat(run(lines.get(1)).output().lines().filter(line -> line.contains("\"leader\":\"n"))).hasSize(3);

    Result cleaned = run(lines.get(4));
    assertThat(cleaned.code()).as(cleaned.output()).isZero();
    assertThat(ROOT.resolve("cluster/run")).doesNotExist();
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

  private record Result(int code, String output) {}

  private static Result run(String line) throws Exception {
    Process process = new ProcessBuilder("bash", "-c", line).directory(ROOT.toFile()).redirectErrorStream(true)
        .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as(line).isTrue();
    return new Result(process.exitValue(), output);
  }
}
