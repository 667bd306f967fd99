package io.reactiveregistry.loadtest.engine;

import io.reactiveregistry.loadtest.dsl.Assertion;
import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What a run measured and how its assertions came out. */
public record RunResult(
    String simulation, Target target, Instant startedAt, double durationSeconds, int users,
    Map<String, String> parameters, List<RequestStats> stats, List<Assertion.Result> assertions, Metrics metrics,
    ServerUsage serverUsage, ServerPushLatency serverPush, double generatorCpuSeconds) {

  /**
   * Without the server's push latency (a server that does not publish it, or no push in the run)
   * and the generator's own CPU (-1: not measured).
   */
  public RunResult(String simulation, Target target, Instant startedAt, double durationSeconds, int users,
      Map<String, String> parameters, List<RequestStats> stats, List<Assertion.Result> assertions, Metrics metrics,
      ServerUsage serverUsage) {
    this(simulation, target, startedAt, durationSeconds, users, parameters, stats, assertions, metrics, serverUsage,
        null, -1);
  }

  public boolean passed() {
    return assertions.stream().allMatch(Assertion.Result::passed);
  }

  /**
   * What the server used during the run: read from {@code /proc} when its pid was given, else from
   * its metrics endpoint when reachable (then with the heap in use at the end; -1 when unknown).
   * From {@code /proc}, the share of the JIT compilers and the garbage collector in it too (-1
   * when unknown): a server still warming up spends much of its time compiling.
   */
  public record ServerUsage(double cpuSeconds, double cpuPercentOfOneCore, long heapBytesAtEnd, String source,
      double jitSeconds, double gcSeconds) {
    public ServerUsage(double cpuSeconds, double cpuPercentOfOneCore, long heapBytesAtEnd, String source) {
      this(cpuSeconds, cpuPercentOfOneCore, heapBytesAtEnd, source, -1, -1);
    }
  }
}
