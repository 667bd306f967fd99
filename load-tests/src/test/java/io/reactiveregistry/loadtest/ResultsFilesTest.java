package io.reactiveregistry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.loadtest.metrics.RequestStats;
import io.reactiveregistry.loadtest.report.StatsFile;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run leaves and says while it runs: progress lines, stats.json beside the HTML report,
 * {@code compare} finding a planted regression, and parameters that cannot be misspelt.
 */
class ResultsFilesTest {
  private static RegistryServer server;

  @TempDir
  Path reports;

  @BeforeAll
  static void start() {
    server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(10));
  }

  @AfterAll
  static void stop() {
    server.disposeNow(Duration.ofSeconds(5));
  }

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = LoadTestMain.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Run storm(String... extra) {
    return run(Stream.concat(Stream.of("RegistrationStorm", "--target", "tcp://127.0.0.1:" + server.tcpPort(),
        "--reports-dir", reports.toString(), "--progress-seconds", "1", "--users", "2", "--instances", "50",
        "--service", "results-" + System.nanoTime()), Stream.of(extra)).toArray(String[]::new));
  }

  @Test
  void aRunPrintsProgressAndWritesStatsJsonThatCompareReads() throws Exception {
    // Held for 2.5 s after registering, so that progress lines come while the users are active.
    Run first = storm("--hold-ms", "2500");
    assertThat(first.exitCode()).as(first.out() + first.err()).isZero();
    assertThat(first.out().lines()).anyMatch(line -> line.matches(
        "\\[ +[12] s\\] 2 users active \\| +\\d+\\.\\d req/s \\| +0 errors \\| p50 +\\d+\\.\\d{3} ms \\| p99 +\\d+\\.\\d{3} ms"));
    Path stats = Path.of(first.out().lines().filter(line -> line.startsWith("stats:")).findFirst().orElseThrow()
        .substring("stats:".length()).trim());
    assertThat(stats.getParent().resolve("index.html")).exists();
    // An HdrHistogram log per request type, which HdrHistogram's own reader takes back.
    Path log = stats.getParent().resolve("register.hlog");
    Histogram total = new Histogram(3);
    try (HistogramLogReader reader = new HistogramLogReader(log.toFile())) {
      for (EncodableHistogram interval = reader.nextIntervalHistogram(); interval != null;
          interval = reader.nextIntervalHistogram()) {
        total.add((Histogram) interval);
      }
    }
    assertThat(total.getTotalCount()).isEqualTo(100);
    assertThat(stats.getParent().resolve("connect.hlog")).exists();
    StatsFile written = StatsFile.read(stats);
    assertThat(written.simulation()).isEqualTo("RegistrationStorm");
    assertThat(written.request("register").count()).isEqualTo(100);
    assertThat(written.parameters()).containsEntry("users", "2");
    assertThat(written.assertions()).allMatch(StatsFile.AssertionOutcome::passed);
    assertThat(written.timeSeries()).containsKey("register");
    assertThat(written.activeUsersPerSecond()).contains(2);

    Run same = run("compare", stats.toString(), stats.toString());
    assertThat(same.exitCode()).isZero();
    assertThat(same.out()).contains("register").contains("p99 ms").contains("no regression beyond 10 %");

    // A planted regression: the same run with its p99 three times as long.
    RequestStats was = written.request("register");
    RequestStats slower = new RequestStats(was.name(), was.count(), was.ok(), was.ko(), was.minUs(), was.p50Us(),
        was.p75Us(), was.p95Us(), was.p99Us() * 3 + 1, Math.max(was.maxUs(), was.p99Us() * 3 + 1), was.meanUs(),
        was.meanRatePerSec());
    StatsFile regressed = new StatsFile(written.simulation(), written.target(), written.startedAt(),
        written.durationSeconds(), written.users(), written.parameters(),
        written.requests().stream().map(r -> r.name().equals("register") ? slower : r).toList(),
        written.serverUsage(), written.assertions(), written.timeSeries(), written.activeUsersPerSecond(),
        written.errors());
    Path candidate = regressed.write(Files.createDirectories(reports.resolve("candidate")));
    Run worse = run("compare", stats.toString(), candidate.toString());
    assertThat(worse.exitCode()).isEqualTo(1);
    assertThat(worse.out()).contains("REGRESSION register p99 ms");
    assertThat(run("compare", stats.toString(), candidate.toString(), "--threshold-percent", "1000").exitCode())
        .isZero();
  }

  @Test
  void aMisspeltOrMalformedParameterIsRefusedBeforeAnythingRuns() {
    Run misspelt = storm("--usres", "5");
    assertThat(misspelt.exitCode()).isEqualTo(2);
    assertThat(misspelt.err()).contains("Unknown options: '--usres'").contains("did you mean --users?");
    Run notANumber = run("RegistrationStorm", "--target", "tcp://127.0.0.1:" + server.tcpPort(), "--users", "many");
    assertThat(notANumber.exitCode()).isEqualTo(2);
    assertThat(notANumber.err()).contains("Invalid value for option '--users': 'many' is not an int");
    assertThat(List.of(reports.toFile().list())).isEmpty();
  }

  /** The README's load-test section names every built-in simulation; `--help` gives their parameters. */
  @Test
  void theReadmeNamesEveryBuiltInSimulation() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    String section = readme.substring(readme.indexOf("\n## Load tests\n"), readme.indexOf("\n## Performance\n"));
    for (String simulation : io.reactiveregistry.loadtest.simulations.BuiltIn.names()) {
      assertThat(section).contains("`" + simulation + "`");
    }
  }

  @Test
  void eachSimulationListsItsOwnParametersAndTheMainHelpListsThemAll() {
    Run help = run("RegistrationStorm", "--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("--users=<int>", "Default: 50", "--instances=<int>", "Default: 1000",
        "--p99-ms=<double>", "Optional: an assertion when given");
    Run all = run("--help");
    assertThat(all.exitCode()).isZero();
    for (String simulation : io.reactiveregistry.loadtest.simulations.BuiltIn.names()) {
      assertThat(all.out()).contains(simulation);
      for (var declared : io.reactiveregistry.loadtest.simulations.SimulationParameters.of(simulation)) {
        if (declared.defaultValue() != null) {
          assertThat(all.out()).contains("--" + declared.name() + " [" + declared.defaultValue() + "]");
        }
      }
    }
  }
}
