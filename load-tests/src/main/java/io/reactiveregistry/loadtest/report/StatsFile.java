package io.reactiveregistry.loadtest.report;

import io.reactiveregistry.loadtest.dsl.Assertion;
import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import io.reactiveregistry.protocol.codec.JsonCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code stats.json}, beside each HTML report: every figure the report shows, for comparing runs
 * ({@code load-tests compare}) and for tools. Latencies in microseconds.
 */
public record StatsFile(
    String simulation, String target, String startedAt, double durationSeconds, int users,
    Map<String, String> parameters, List<RequestStats> requests, RunResult.ServerUsage serverUsage,
    List<AssertionOutcome> assertions, Map<String, List<Metrics.SecondPoint>> timeSeries,
    List<Integer> activeUsersPerSecond, List<Metrics.ErrorCount> errors) {

  /** One assertion as it came out. */
  public record AssertionOutcome(String description, boolean passed, String actual) {}

  public static StatsFile of(RunResult result) {
    return new StatsFile(result.simulation(), result.target().toString(), result.startedAt().toString(),
        result.durationSeconds(), result.users(), result.parameters(), result.stats(), result.serverUsage(),
        result.assertions().stream().map(StatsFile::outcome).toList(), result.metrics().timeSeries(),
        result.metrics().activeUsersPerSecond(), result.metrics().errors());
  }

  private static AssertionOutcome outcome(Assertion.Result result) {
    return new AssertionOutcome(result.description(), result.passed(), String.valueOf(result.actual()));
  }

  /** Writes {@code stats.json} into {@code dir}; its path. */
  public Path write(Path dir) {
    try {
      Files.createDirectories(dir);
      Path file = dir.resolve("stats.json");
      Files.write(file, JsonCodec.json().encode(this));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static StatsFile read(Path file) {
    try {
      return JsonCodec.json().decode(Files.readAllBytes(file), StatsFile.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A request's figures, or null when this run has none of that name. */
  public RequestStats request(String name) {
    return requests.stream().filter(stats -> stats.name().equals(name)).findFirst().orElse(null);
  }
}
