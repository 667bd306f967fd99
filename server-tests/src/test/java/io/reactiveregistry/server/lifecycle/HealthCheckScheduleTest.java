package io.reactiveregistry.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The schedule of health checks, on virtual time with a probe of the test's own: every persistent
 * instance is checked once per interval, the checks spread evenly, whatever their count, and never
 * more in flight than the limit.
 */
class HealthCheckScheduleTest {
  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final int CONCURRENCY = 8;

  private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
  private final Registry registry = new Registry(new ManualClock(1_000_000), RegistryConfig.DEFAULTS);
  private final RegistryRuntime runtime = new RegistryRuntime(registry, new PushHub(1_000));
  private final ServiceKey db = ServiceKey.of(null, null, "db");
  private final List<Long> startedAtMillis = new ArrayList<>();
  private final Map<String, Integer> checksPerInstance = new HashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private int mostInFlight;
  private Disposable running;

  @AfterEach
  void stop() {
    if (running != null) {
      running.dispose();
    }
    time.dispose();
  }

  private void register(int count) {
    for (int i = 0; i < count; i++) {
      runtime.execute(new Command.Register(new Owner(1, "ops"), db, false,
          InstanceSpec.of("instance", "127.0.0." + (1 + i / 250), 1000 + i % 250, null, null, null, null)));
    }
  }

  /** Each check takes {@code took} of virtual time, then answers {@code healthy}. */
  private HealthChecker checker(Duration took, boolean healthy) {
    return new HealthChecker(runtime, INTERVAL, TIMEOUT, CONCURRENCY, (target, limit) -> Mono.defer(() -> {
      startedAtMillis.add(time.now(java.util.concurrent.TimeUnit.MILLISECONDS));
      checksPerInstance.merge(target.instanceId(), 1, Integer::sum);
      mostInFlight = Math.max(mostInFlight, inFlight.incrementAndGet());
      return Mono.delay(took, time).thenReturn(new HealthChecker.Verdict(healthy, "test")).doFinally(signal -> inFlight.decrementAndGet());
    }));
  }

  @Test
  void everyInstanceIsCheckedOncePerIntervalSpreadEvenlyWhateverTheCount() {
    register(1_000);
    // 20 ms per check with at most 8 in flight: 400 checks a second can run, 200 are needed.
    running = checker(Duration.ofMillis(20), true).start(time);

    time.advanceTimeBy(INTERVAL.minusMillis(1));
    assertThat(checksPerInstance).hasSize(1_000).allSatisfy((id, checks) -> assertThat(checks).isEqualTo(1));
    // The i-th check starts at i × 5 ms: the schedule holds from the first check to the last.
    for (int i = 0; i < startedAtMillis.size(); i++) {
      assertThat(startedAtMillis.get(i)).as("start of check %d", i).isEqualTo(i * 5L);
    }

    time.advanceTimeBy(INTERVAL);
    assertThat(checksPerInstance.values()).as("one more round, one more check each").containsOnly(2);
    assertThat(mostInFlight).isLessThanOrEqualTo(CONCURRENCY);
  }

  @Test
  void slowChecksNeverExceedTheConcurrencyAndTheRoundStillEndsWithinOneTimeout() {
    register(400);
    // Each check waits 100 ms: 8 in flight run 80 a second, fewer than the 80 needed per second.
    running = checker(Duration.ofMillis(100), true).start(time);

    time.advanceTimeBy(INTERVAL.plus(TIMEOUT));
    assertThat(checksPerInstance).hasSize(400);
    assertThat(mostInFlight).isEqualTo(CONCURRENCY);
  }

  @Test
  void aCheckThatDoesNotAnswerWithinTheTimeoutMarksTheInstanceUnhealthy() {
    register(10);
    running = new HealthChecker(runtime, INTERVAL, TIMEOUT, CONCURRENCY, (target, limit) -> Mono.never()).start(time);

    time.advanceTimeBy(TIMEOUT.minusMillis(1));
    assertThat(runtime.read(r -> r.view(db, ViewFilter.ALL)).instances().get(0).healthy()).isTrue();
    time.advanceTimeBy(INTERVAL);
    assertThat(runtime.read(r -> r.view(db, ViewFilter.ALL)).instances()).noneMatch(i -> i.healthy());
  }

  @Test
  void aServiceSetsItsOwnTimeoutAndCanTurnItsChecksOff() {
    ServiceKey fast = ServiceKey.of(null, null, "fast");
    ServiceKey external = ServiceKey.of(null, null, "external");
    Owner ops = new Owner(1, "ops");
    runtime.execute(new Command.CreateService(ops, fast, false, 0.0, Map.of("health.check.timeout", "500")));
    runtime.execute(new Command.CreateService(ops, external, false, 0.0, Map.of("health.check.enabled", "false")));
    runtime.execute(new Command.Register(ops, fast, false,
        InstanceSpec.of("instance", "127.0.0.1", 1, null, null, null, null)));
    runtime.execute(new Command.Register(ops, external, false,
        InstanceSpec.of("instance", "127.0.0.1", 2, null, null, null, null)));
    List<String> probed = new ArrayList<>();
    List<Duration> limits = new ArrayList<>();
    long[] fastStartedAt = {-1};
    running = new HealthChecker(runtime, INTERVAL, TIMEOUT, CONCURRENCY, (target, limit) -> {
      probed.add(target.service().service());
      limits.add(limit);
      if (fastStartedAt[0] < 0) {
        fastStartedAt[0] = time.now(java.util.concurrent.TimeUnit.MILLISECONDS);
      }
      return Mono.never();
    }).start(time);

    long[] unhealthyAt = {-1};
    runtime.addListener(events -> {
      if (unhealthyAt[0] < 0 && !events.isEmpty()) {
        unhealthyAt[0] = time.now(java.util.concurrent.TimeUnit.MILLISECONDS);
      }
    });

    time.advanceTimeBy(INTERVAL);
    assertThat(runtime.read(r -> r.view(fast, ViewFilter.ALL)).instances().get(0).healthy()).isFalse();
    assertThat(unhealthyAt[0] - fastStartedAt[0]).as("the service's 500 ms, not the default 2 s").isEqualTo(500);
    time.advanceTimeBy(INTERVAL.multipliedBy(2));
    assertThat(probed).containsOnly("fast");
    assertThat(limits).containsOnly(Duration.ofMillis(500));
    assertThat(runtime.read(r -> r.view(external, ViewFilter.ALL)).instances().get(0).healthy()).isTrue();
  }
}
