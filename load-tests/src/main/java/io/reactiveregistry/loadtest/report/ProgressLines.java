package io.reactiveregistry.loadtest.report;

import io.reactiveregistry.loadtest.metrics.Metrics;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * A line every period while a run goes on, as Gatling prints them: active users, requests per
 * second, errors, and p50/p99 of the period just ended (whole seconds of it).
 *
 * <pre>[   10 s] 50 users active |   9870.2 req/s |      0 errors | p50   0.610 ms | p99   3.200 ms</pre>
 */
public final class ProgressLines {
  private ProgressLines() {}

  public static Disposable start(Metrics metrics, Duration period, PrintStream out) {
    long seconds = Math.max(1, period.toSeconds());
    return Flux.interval(Duration.ofSeconds(seconds), Duration.ofSeconds(seconds))
        .subscribe(tick -> out.println(line(metrics, (tick + 1) * seconds, seconds)));
  }

  static String line(Metrics metrics, long atSecond, long seconds) {
    Metrics.Period last = metrics.period(atSecond - seconds, atSecond);
    return String.format(Locale.ROOT, "[%5d s] %d users active | %8.1f req/s | %6d errors | p50 %7.3f ms | p99 %7.3f ms",
        atSecond, metrics.activeUsers(), (double) last.ok() / seconds, last.ko(), last.p50Us() / 1000.0,
        last.p99Us() / 1000.0);
  }
}
