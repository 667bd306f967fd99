package io.reactiveregistry.loadtest.report;

import io.reactiveregistry.loadtest.dsl.Assertion;
import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.engine.ServerPushLatency;
import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.util.Locale;

/** A Gatling-like summary: one line per request name, then the assertions. */
public final class ConsoleReport {
  private ConsoleReport() {}

  public static void print(RunResult result, PrintStream out) {
    String rule = "=".repeat(118);
    out.println(rule);
    out.printf(Locale.ROOT, "%s against %s: %d users, %.1f s%n", result.simulation(), result.target(), result.users(),
        result.durationSeconds());
    if (!result.parameters().isEmpty()) {
      out.println("parameters: " + result.parameters());
    }
    out.println(rule);
    out.printf(Locale.ROOT, "%-18s %9s %9s %7s %9s %9s %9s %9s %9s %9s %11s%n", "request", "count", "ok", "ko",
        "min ms", "p50 ms", "p75 ms", "p95 ms", "p99 ms", "max ms", "mean/s");
    for (RequestStats s : result.stats()) {
      out.printf(Locale.ROOT, "%-18s %9d %9d %7d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %11.1f%n", s.name(), s.count(),
          s.ok(), s.ko(), ms(s.minUs()), ms(s.p50Us()), ms(s.p75Us()), ms(s.p95Us()), ms(s.p99Us()), ms(s.maxUs()),
          s.meanRatePerSec());
    }
    if (result.serverUsage() != null) {
      RunResult.ServerUsage usage = result.serverUsage();
      out.printf(Locale.ROOT, "server CPU: %.2f s (%.0f %% of one core on average)%s%s, from %s%n", usage.cpuSeconds(),
          usage.cpuPercentOfOneCore(),
          usage.jitSeconds() < 0 ? "" : String.format(Locale.ROOT, ", of which JIT compilers %.2f s, GC %.2f s",
              usage.jitSeconds(), usage.gcSeconds()),
          usage.heapBytesAtEnd() < 0 ? "" : String.format(Locale.ROOT, "; heap in use at the end: %.1f MB",
              usage.heapBytesAtEnd() / 1e6), usage.source());
    }
    if (result.generatorCpuSeconds() >= 0) {
      out.printf(Locale.ROOT, "generator CPU during the run: %.2f s (this process, its start left out)%n",
          result.generatorCpuSeconds());
    }
    if (result.serverPush() != null) {
      ServerPushLatency push = result.serverPush();
      out.printf(Locale.ROOT, "server push: %d events, p50 %.2f ms, p99 %.2f ms (bucket <= %s ms), from a change to "
          + "its event taken for the subscriber's socket%n", push.events(), push.p50Ms(), push.p99Ms(),
          bound(push.p99BucketMs()));
    }
    for (Metrics.ErrorCount error : result.metrics().errors()) {
      out.printf(Locale.ROOT, "error %-18s %7d x %s%n", error.request(), error.count(), error.message());
    }
    out.println(rule);
    for (Assertion.Result assertion : result.assertions()) {
      out.printf(Locale.ROOT, "%-6s %s (actual: %s)%n", assertion.passed() ? "PASS" : "FAIL", assertion.description(),
          assertion.actual());
    }
    long passed = result.assertions().stream().filter(Assertion.Result::passed).count();
    out.println(passed + " passed, " + (result.assertions().size() - passed) + " failed");
  }

  private static double ms(long micros) {
    return micros / 1000.0;
  }

  /** A bucket's upper bound as Prometheus writes it: 2.5, 20, +Inf (not rounded to 3). */
  private static String bound(double ms) {
    return Double.isInfinite(ms) ? "+Inf" : BigDecimal.valueOf(ms).stripTrailingZeros().toPlainString();
  }
}
