package io.reactiveregistry.loadtest.engine;

import io.reactiveregistry.loadtest.dsl.Assertion;
import io.reactiveregistry.loadtest.dsl.Injection;
import io.reactiveregistry.loadtest.dsl.Scenario;
import io.reactiveregistry.loadtest.dsl.Simulation;
import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import io.reactiveregistry.loadtest.report.ProgressLines;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Starts each scenario's users on their injection schedule, runs them until they finish or the
 * simulation's maximum duration passes, then closes every connection and evaluates the assertions.
 */
public final class Runner {
  private static final Logger log = LoggerFactory.getLogger(Runner.class);

  private Runner() {}

  /**
   * A user whose scenario failed did not do what the simulation measures: that always fails the
   * run, however small a share of all requests it is.
   */
  private static Assertion.Result everyScenarioCompleted(List<RequestStats> stats) {
    long failed = stats.stream().filter(s -> s.name().startsWith("scenario:")).mapToLong(RequestStats::ko).sum();
    long all = stats.stream().filter(s -> s.name().startsWith("scenario:")).mapToLong(RequestStats::count).sum();
    return new Assertion.Result("every user completed its scenario", failed == 0, failed + " of " + all + " failed");
  }

  /** Runs a simulation; blocks the calling (main) thread until it is over. */
  public static RunResult run(Simulation simulation, Target target, Map<String, String> parameters, Long serverPid) {
    return run(simulation, target, parameters, serverPid, null);
  }

  /** As above; {@code metrics} is the server's Prometheus endpoint, read when no pid is given. */
  public static RunResult run(Simulation simulation, Target target, Map<String, String> parameters, Long serverPid,
      java.net.URI metrics) {
    return run(simulation, target, parameters, serverPid, metrics, Duration.ofSeconds(5), System.out);
  }

  /** As above, printing a progress line to {@code progress} every {@code progressPeriod}. */
  public static RunResult run(Simulation simulation, Target target, Map<String, String> parameters, Long serverPid,
      java.net.URI metrics, Duration progressPeriod, java.io.PrintStream progress) {
    Metrics measured = new Metrics();
    Map<String, Long> closeMarks = VirtualUser.newCloseMarks();
    PushWindow pushWindow = new PushWindow(metrics);
    AtomicInteger ids = new AtomicInteger();
    AtomicInteger cancelled = new AtomicInteger();
    List<VirtualUser> everyone = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Mono<Void>> users = new ArrayList<>();
    for (Scenario.Population population : simulation.populations()) {
      String scenario = "scenario:" + population.scenario().name();
      Supplier<Mono<Void>> oneUser = () -> {
        AtomicBoolean ended = new AtomicBoolean();
        long[] startedAt = {0};
        return Mono.defer(() -> {
          VirtualUser user = new VirtualUser(ids.getAndIncrement(), target, measured, closeMarks, pushWindow);
          AtomicBoolean left = new AtomicBoolean();
          everyone.add(user);
          measured.userStarted();
          long start = System.nanoTime();
          startedAt[0] = start;
          return population.run(user)
              .doOnError(e -> {
                ended.set(true);
                measured.recordKo(scenario, start);
                log.warn("user {} of {} failed: {}", user.id(), population.scenario().name(), e.toString());
              })
              .doOnSuccess(v -> {
                ended.set(true);
                measured.recordOk(scenario, start);
              })
              .onErrorResume(e -> Mono.empty())
              // Before the completion travels on, not after (doFinally): a closed model's next
              // user starts from it, and must not be counted beside the one it replaces.
              .doOnTerminate(() -> leave(user, measured, left))
              .doOnCancel(() -> leave(user, measured, left));
        }).doOnCancel(() -> {
          // Cut off by the maximum duration (or never started before it): it did not do what the
          // simulation measures, so it counts as failed.
          if (ended.compareAndSet(false, true)) {
            measured.recordKo(scenario, startedAt[0] == 0 ? System.nanoTime() : startedAt[0]);
            cancelled.incrementAndGet();
          }
        });
      };
      Injection injection = population.injection();
      for (Duration offset : injection.offsets()) {
        users.add(Mono.delay(offset).then(oneUser.get()));
      }
      // A closed model: each slot runs one user after another, a new one as soon as the last
      // finished, from its opening until the step's end.
      long end = measured.startNanos() + injection.duration().toNanos();
      for (Duration slot : injection.slots()) {
        users.add(Mono.delay(slot).then(Mono.defer(oneUser).repeat(() -> System.nanoTime() < end).then()));
      }
    }
    Instant startedAt = Instant.now();
    ServerCpu.Reading cpuBefore = serverPid == null ? null : ServerCpu.read(serverPid);
    long generatorCpuBefore = generatorCpuNanos();
    ServerMetrics.Reading before = serverPid == null && metrics != null ? ServerMetrics.read(metrics) : null;
    var pushesBefore = metrics == null ? null : ServerPushLatency.scrape(metrics);
    log.info("running {} against {} with {} users", simulation.name(), target, users.size());
    Disposable lines = ProgressLines.start(measured, progressPeriod, progress);
    Flux.merge(Flux.fromIterable(users), Integer.MAX_VALUE)
        .take(simulation.maxDuration())
        .then()
        .doFinally(signal -> lines.dispose())
        .block();
    if (cancelled.get() > 0) {
      log.warn("{} user(s) had not completed their scenario when the maximum duration of {} passed: counted as "
          + "failed", cancelled.get(), simulation.maxDuration());
    }
    everyone.forEach(VirtualUser::dispose);
    measured.finish();
    ServerCpu.Reading cpuAfter = serverPid == null ? null : ServerCpu.read(serverPid);
    long generatorCpu = generatorCpuNanos() - generatorCpuBefore;
    ServerMetrics.Reading after = before == null ? null : ServerMetrics.read(metrics);
    ServerPushLatency serverPush = pushesBefore == null ? null
        : pushWindow.measured(pushesBefore, ServerPushLatency.scrape(metrics));
    RunResult.ServerUsage usage = null;
    if (cpuBefore != null && cpuBefore.total() >= 0 && cpuAfter.total() >= 0) {
      ServerCpu.Reading spent = cpuAfter.since(cpuBefore);
      usage = new RunResult.ServerUsage(spent.total(), 100 * spent.total() / measured.elapsedSeconds(), -1,
          "/proc/" + serverPid, spent.jit(), spent.gc());
    } else if (before != null && after != null) {
      double cpu = after.cpuSeconds() - before.cpuSeconds();
      usage = new RunResult.ServerUsage(cpu, 100 * cpu / measured.elapsedSeconds(), after.heapBytes(),
          metrics.toString());
    }
    List<RequestStats> stats = measured.stats();
    Double serverCpu = usage == null ? null : usage.cpuSeconds();
    List<Assertion.Result> results = new ArrayList<>(
        simulation.assertions().stream().map(a -> a.evaluate(stats, serverCpu, measured)).toList());
    results.add(everyScenarioCompleted(stats));
    return new RunResult(simulation.name(), target, startedAt, measured.elapsedSeconds(), users.size(), parameters,
        stats, results, measured, usage, serverPush, generatorCpuBefore < 0 ? -1 : generatorCpu / 1e9);
  }

  /**
   * This process's CPU so far (-1 when the JVM cannot say): the generator's cost during the run,
   * without its JVM's start, to compare with the server's on the same cores.
   */
  private static long generatorCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
  }

  private static void leave(VirtualUser user, Metrics measured, AtomicBoolean left) {
    if (left.compareAndSet(false, true)) {
      user.dispose();
      measured.userEnded();
    }
  }
}
