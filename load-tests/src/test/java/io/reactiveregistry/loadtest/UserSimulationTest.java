package io.reactiveregistry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.loadtest.report.StatsFile;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A simulation a user wrote ({@code com.example.loadtest.MyFleet}), run by its class name against a real server. */
class UserSimulationTest {
  @TempDir
  Path reports;

  @Test
  void aUsersSimulationRunsByClassNameAndWritesItsReportAndStats() {
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(10));
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = LoadTestMain.execute(new String[] {"com.example.loadtest.MyFleet", "--target",
          "tcp://127.0.0.1:" + server.tcpPort(), "--reports-dir", reports.toString(), "--instances", "3"},
          new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      String printed = out.toString(StandardCharsets.UTF_8);
      assertThat(code).as(printed + err).isZero();
      Path stats = Path.of(printed.lines().filter(line -> line.startsWith("stats:")).findFirst().orElseThrow()
          .substring("stats:".length()).trim());
      StatsFile file = StatsFile.read(stats);
      assertThat(file.simulation()).isEqualTo("MyFleet");
      // 2 at once and rampUsersPerSec(2).to(6) over 1 s (4 users) deploy 3 instances each; 2 callers query 10 times.
      assertThat(file.request("register").count()).isEqualTo(6 * 3);
      assertThat(file.request("query").count()).isEqualTo(20);
      assertThat(file.parameters()).containsExactlyEntriesOf(Map.of("instances", "3"));
      assertThat(stats.getParent().resolve("index.html")).exists();
    } finally {
      server.disposeNow(Duration.ofSeconds(5));
    }
  }

  /**
   * A feeder whose file a parameter names reads it when a user first takes a record: run from a
   * folder without a file of the default name, the simulation registers what the given file lists.
   */
  @Test
  void aFeedersFileNamedByAParameterIsReadOnlyWhenUsersTakeFromIt(@TempDir Path files) throws Exception {
    assertThat(Path.of("fleet.csv")).as("no file of the default name where the test runs").doesNotExist();
    Path fleet = files.resolve("my-fleet.csv");
    Files.writeString(fleet, "service,ip,port\nfed-fleet,127.0.0.21,8080\nfed-fleet,127.0.0.22,8080\n"
        + "fed-fleet,127.0.0.23,8080\n");
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(10));
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = LoadTestMain.execute(new String[] {"com.example.loadtest.FedFleet", "--target",
          "tcp://127.0.0.1:" + server.tcpPort(), "--reports-dir", reports.toString(), "--fleet", fleet.toString()},
          new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      String printed = out.toString(StandardCharsets.UTF_8);
      assertThat(code).as(printed + err).isZero();
      Path stats = Path.of(printed.lines().filter(line -> line.startsWith("stats:")).findFirst().orElseThrow()
          .substring("stats:".length()).trim());
      assertThat(StatsFile.read(stats).request("register").count()).isEqualTo(3);

      // Without the parameter, the file of the default name is missing: the users fail saying so.
      ByteArrayOutputStream missing = new ByteArrayOutputStream();
      int failed = LoadTestMain.execute(new String[] {"com.example.loadtest.FedFleet", "--target",
          "tcp://127.0.0.1:" + server.tcpPort(), "--reports-dir", reports.toString()},
          new PrintStream(missing, true, StandardCharsets.UTF_8), new PrintStream(missing, true, StandardCharsets.UTF_8));
      assertThat(failed).isEqualTo(1);
      assertThat(missing.toString(StandardCharsets.UTF_8)).contains("fleet.csv");
    } finally {
      server.disposeNow(Duration.ofSeconds(5));
    }
  }

  /** The README's "Writing your own simulation" shows MyFleet exactly as compiled and run here. */
  @Test
  void theReadmeShowsMyFleetVerbatim() throws Exception {
    String source = Files.readString(Path.of("src/test/java/com/example/loadtest/MyFleet.java"));
    String shown = source.substring(source.indexOf("// README:start\n") + 16, source.indexOf("// README:end")).strip();
    String readme = Files.readString(Path.of("../README.md"));
    int section = readme.indexOf("\n### Writing your own simulation\n");
    int open = readme.indexOf("```java\n", section);
    assertThat(section).isNotNegative();
    assertThat(readme.substring(open + 8, readme.indexOf("\n```", open + 8)).strip()).isEqualTo(shown);
  }

  @Test
  void aClassThatIsNoSimulationIsAClearUsageError() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    assertThat(LoadTestMain.execute(new String[] {"com.example.loadtest.Nothing"}, out, errors)).isEqualTo(2);
    assertThat(LoadTestMain.execute(new String[] {"java.lang.String"}, out, errors)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no class com.example.loadtest.Nothing")
        .contains("java.lang.String is not a io.reactiveregistry.loadtest.dsl.SimulationDefinition");
  }
}
