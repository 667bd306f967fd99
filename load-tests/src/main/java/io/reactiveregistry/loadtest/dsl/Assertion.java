package io.reactiveregistry.loadtest.dsl;

import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * A condition on the run's figures that decides the exit code:
 * {@code percentile("register", 99.9).lessThan(ms(20))} (any percentile, read off the run's
 * histogram, not rounded to a stored one), {@code meanResponseTime}, {@code stdDevResponseTime},
 * {@code maxResponseTime}, {@code errorPercent("*").lessThan(0.1)}, {@code failedCount(...).atMost(n)},
 * {@code throughput("register").greaterThan(50_000)}, {@code count}, {@code serverCpuPerRequest}.
 * A request named {@code "*"} means every request of the run (the scenarios left out): Gatling's
 * {@code global()}.
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

  /** Evaluates with the run's own histograms too; the latency assertions read them. */
  public Result evaluate(List<RequestStats> stats, Double serverCpuSeconds, Metrics metrics) {
    return evaluate(stats, serverCpuSeconds);
  }

  public static LatencyBuilder meanResponseTime(String request) {
    return new LatencyBuilder(request, "mean response time", Histogram::getMean);
  }

  public static LatencyBuilder stdDevResponseTime(String request) {
    return new LatencyBuilder(request, "standard deviation of the response time", Histogram::getStdDeviation);
  }

  public static LatencyBuilder maxResponseTime(String request) {
    return new LatencyBuilder(request, "max response time", histogram -> (double) histogram.getMaxValue());
  }

  public static FailedBuilder failedCount(String request) {
    return new FailedBuilder(request);
  }

  public static ServerCpuBuilder serverCpuPerRequest(String request) {
    return new ServerCpuBuilder(request);
  }

  public static PercentileBuilder percentile(String request, double percentile) {
    if (!(percentile > 0 && percentile <= 100)) {
      throw new IllegalArgumentException("a percentile is above 0 and at most 100, not " + percentile);
    }
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
      LatencyBuilder exact = new LatencyBuilder(request, "p" + trim(percentile),
          histogram -> (double) histogram.getValueAtPercentile(percentile));
      Assertion fromHistogram = exact.lessThan(limit);
      return new Assertion() {
        @Override
        public Result evaluate(List<RequestStats> stats, Double serverCpuSeconds, Metrics metrics) {
          return metrics == null ? evaluate(stats) : fromHistogram.evaluate(stats, serverCpuSeconds, metrics);
        }

        /** Without the run's histograms (a summary alone): the nearest stored percentile at or above. */
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

  /** A latency figure of the run's histogram, in microseconds, against a limit. */
  public record LatencyBuilder(String request, String figure, ToDoubleFunction<Histogram> read) {
    public Assertion lessThan(Duration limit) {
      String description = String.format(Locale.ROOT, "%s of %s < %s ms", figure, request, trim(limit.toNanos() / 1e6));
      return new Assertion() {
        @Override
        public Result evaluate(List<RequestStats> stats) {
          return new Result(description, false, "needs the run's histograms");
        }

        @Override
        public Result evaluate(List<RequestStats> stats, Double serverCpuSeconds, Metrics metrics) {
          Histogram latencies = metrics == null ? null : metrics.latencies(request);
          if (latencies == null) {
            return new Result(description, false, "no successful requests");
          }
          double actualUs = read.applyAsDouble(latencies);
          return new Result(description, actualUs * 1_000 < limit.toNanos(),
              String.format(Locale.ROOT, "%.3f ms", actualUs / 1000.0));
        }
      };
    }
  }

  public record FailedBuilder(String request) {
    public Assertion atMost(long failures) {
      String description = "failed " + request + " <= " + failures;
      return new Assertion() {
        @Override
        public Result evaluate(List<RequestStats> stats) {
          long ko = stats.stream().filter(s -> request.equals("*") ? !s.name().startsWith("scenario:")
              : s.name().equals(request)).mapToLong(RequestStats::ko).sum();
          return new Result(description, ko <= failures, Long.toString(ko));
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
