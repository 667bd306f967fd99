package io.reactiveregistry.loadtest.report;

import io.reactiveregistry.loadtest.metrics.RequestStats;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code load-tests compare before/stats.json after/stats.json}: the two runs side by side, and
 * exit code 1 when the second regressed beyond the threshold: a request's p99 grew, or its
 * throughput or its share of successes fell, by more than {@code --threshold-percent}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Prints two runs' stats.json side by side; exits with 1 on a regression beyond the threshold.")
public final class CompareCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "<baseline>", description = "stats.json of the earlier run")
  Path baseline;

  @Parameters(index = "1", paramLabel = "<candidate>", description = "stats.json of the run to judge")
  Path candidate;

  @Option(names = "--threshold-percent", defaultValue = "10",
      description = "How much worse a figure may get before it counts as a regression. Default: ${DEFAULT-VALUE}")
  double thresholdPercent;

  private final PrintStream out;

  public CompareCommand() {
    this(System.out);
  }

  public CompareCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    StatsFile before = StatsFile.read(baseline);
    StatsFile after = StatsFile.read(candidate);
    out.printf(Locale.ROOT, "%s (%s) -> %s (%s)%n", before.simulation(), before.startedAt(), after.simulation(),
        after.startedAt());
    out.printf(Locale.ROOT, "%-18s %-9s %14s %14s %9s%n", "request", "figure", "baseline", "candidate", "change");
    List<String> regressions = new ArrayList<>();
    for (RequestStats was : before.requests()) {
      RequestStats now = after.request(was.name());
      if (now == null) {
        out.printf(Locale.ROOT, "%-18s (not in the candidate run)%n", was.name());
        continue;
      }
      row(was.name(), "p50 ms", was.p50Us() / 1000.0, now.p50Us() / 1000.0, false, regressions);
      row(was.name(), "p99 ms", was.p99Us() / 1000.0, now.p99Us() / 1000.0, true, regressions);
      row(was.name(), "mean/s", was.meanRatePerSec(), now.meanRatePerSec(), true, regressions, true);
      row(was.name(), "ok %", 100 - was.errorPercent(), 100 - now.errorPercent(), true, regressions, true);
    }
    if (before.serverUsage() != null && after.serverUsage() != null) {
      out.printf(Locale.ROOT, "%-18s %-9s %14.2f %14.2f %+8.1f%%%n", "server", "CPU s", before.serverUsage().cpuSeconds(),
          after.serverUsage().cpuSeconds(), change(before.serverUsage().cpuSeconds(), after.serverUsage().cpuSeconds()));
    }
    if (regressions.isEmpty()) {
      out.printf(Locale.ROOT, "no regression beyond %.0f %%%n", thresholdPercent);
      return 0;
    }
    regressions.forEach(regression -> out.println("REGRESSION " + regression));
    return 1;
  }

  private void row(String name, String figure, double was, double now, boolean judged, List<String> regressions) {
    row(name, figure, was, now, judged, regressions, false);
  }

  /** One figure; {@code higherIsBetter} for throughput and successes, otherwise lower is better. */
  private void row(String name, String figure, double was, double now, boolean judged, List<String> regressions,
      boolean higherIsBetter) {
    double change = change(was, now);
    out.printf(Locale.ROOT, "%-18s %-9s %14.3f %14.3f %+8.1f%%%n", name, figure, was, now, change);
    boolean worse = higherIsBetter ? change < -thresholdPercent : change > thresholdPercent;
    if (judged && worse) {
      regressions.add(String.format(Locale.ROOT, "%s %s: %.3f -> %.3f (%+.1f %%, threshold %.0f %%)", name, figure, was,
          now, change, thresholdPercent));
    }
  }

  private static double change(double was, double now) {
    return was == 0 ? (now == 0 ? 0 : 100) : 100 * (now - was) / was;
  }
}
