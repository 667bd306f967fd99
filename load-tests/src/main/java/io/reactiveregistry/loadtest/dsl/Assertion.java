package io.reactiveregistry.loadtest.dsl;

import io.reactiveregistry.loadtest.metrics.RequestStats;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A condition on the run's figures that decides the exit code:
 * {@code percentile("register", 99).lessThan(ms(20))}, {@code errorPercent("*").lessThan(0.1)},
 * {@code throughput("register").greaterThan(50_000)}.
 */
public abstract class Assertion {
  /** What an assertion found. */
  public record Result(String description, boolean passed, String actual) {}

  public abstract Result evaluate(List<RequestStats> stats);

  /**
   * Evaluates with the server's CPU time over the run, in seconds, when it was measured
   * ({@code --server-pid} or the server's metrics endpoint), else null. Most assertions ignore it.
   */
  public Result evaluate(List<RequestStats> stats, Double serverCpuSeconds) {
    return evaluate(stats);
  }

  public static ServerCpuBuilder serverCpuPerRequest(String request) {
    return new ServerCpuBuilder(request);
  }

  public static PercentileBuilder percentile(String request, double percentile) {
    return new PercentileBuilder(request, percentile);
  }

  public static ErrorBuilder errorPercent(String request) {
    return new ErrorBuilder(request);
  }

  public static ThroughputBuilder throughput(String request) {
    return new ThroughputBuilder(request);
  }

  public static CountBuilder count(String request) {
    return new CountBuilder(request);
  }

  public record PercentileBuilder(String request, double percentile) {
    public Assertion lessThan(Duration limit) {
      return new Assertion() {
        @Override
        public Result evaluate(List<RequestStats> stats) {
          String description = String.format(Locale.ROOT, "p%s of %s < %s ms", trim(percentile), request,
              trim(limit.toNanos() / 1e6));
          Optional<RequestStats> s = find(stats, request);
          if (s.isEmpty() || s.get().ok() == 0) {
            return new Result(description, false, "no successful requests");
          }
          long actualUs = percentile >= 99.5 ? s.get().maxUs() : pick(s.get(), percentile);
          return new Result(description, actualUs * 1_000L < limit.toNanos(),
              String.format(Locale.ROOT, "%.3f ms", actualUs / 1000.0));
        }
      };
    }
  }

  public record ErrorBuilder(String request) {
    public Assertion lessThan(double percent) {
      return new Assertion() {
        @Override
        public Result evaluate(List<RequestStats> stats) {
          long count = 0;
          long ko = 0;
          for (RequestStats s : stats) {
            if (request.equals("*") || s.name().equals(request)) {
              count += s.count();
              ko += s.ko();
            }
          }
          String description = String.format(Locale.ROOT, "errors of %s < %s %%", request, trim(percent));
          if (count == 0) {
            // No request, no error rate: a run that sent nothing has not shown it works.
            return new Result(description, false, "no requests");
          }
          double actual = 100.0 * ko / count;
          return new Result(description, actual < percent,
              String.format(Locale.ROOT, "%.3f %% (%d of %d)", actual, ko, count));
        }
      };
    }
  }

  public record ThroughputBuilder(String request) {
    public Assertion greaterThan(double perSecond) {
      return new Assertion() {
        @Override
        public Result evaluate(List<RequestStats> stats) {
          double actual = find(stats, request).map(RequestStats::meanRatePerSec).orElse(0.0);
          return new Result(String.format(Locale.ROOT, "throughput of %s > %s/s", request, trim(perSecond)),
              actual > perSecond, String.format(Locale.ROOT, "%.1f/s", actual));
        }
      };
    }
  }

  public record CountBuilder(String request) {
    public Assertion atLeast(long expected) {
      return new Assertion() {
        @Override
        public Result evaluate(List<RequestStats> stats) {
          long actual = find(stats, request).map(RequestStats::ok).orElse(0L);
          return new Result("successful " + request + " >= " + expected, actual >= expected, Long.toString(actual));
        }
      };
    }
  }

  /** The server's CPU time over the run divided by the successful requests of one kind. */
  public record ServerCpuBuilder(String request) {
    public Assertion atMostMicros(double micros) {
      return new Assertion() {
        private final String description = String.format(Locale.ROOT, "server CPU per %s <= %s µs", request,
            trim(micros));

        @Override
        public Result evaluate(List<RequestStats> stats) {
          return new Result(description, false, "server CPU not measured (give --server-pid)");
        }

        @Override
        public Result evaluate(List<RequestStats> stats, Double serverCpuSeconds) {
          long ok = find(stats, request).map(RequestStats::ok).orElse(0L);
          if (serverCpuSeconds == null) {
            return evaluate(stats);
          }
          if (ok == 0) {
            return new Result(description, false, "no successful " + request);
          }
          double actual = serverCpuSeconds * 1e6 / ok;
          return new Result(description, actual <= micros, String.format(Locale.ROOT, "%.2f µs", actual));
        }
      };
    }
  }

  static long pick(RequestStats s, double percentile) {
    if (percentile <= 50) {
      return s.p50Us();
    }
    if (percentile <= 75) {
      return s.p75Us();
    }
    if (percentile <= 95) {
      return s.p95Us();
    }
    return s.p99Us();
  }

  static Optional<RequestStats> find(List<RequestStats> stats, String request) {
    return stats.stream().filter(s -> s.name().equals(request)).findFirst();
  }

  static String trim(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
