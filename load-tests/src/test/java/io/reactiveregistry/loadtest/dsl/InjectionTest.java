package io.reactiveregistry.loadtest.dsl;

import static io.reactiveregistry.loadtest.dsl.Injection.atOnceUsers;
import static io.reactiveregistry.loadtest.dsl.Injection.constantConcurrentUsers;
import static io.reactiveregistry.loadtest.dsl.Injection.constantUsersPerSec;
import static io.reactiveregistry.loadtest.dsl.Injection.nothingFor;
import static io.reactiveregistry.loadtest.dsl.Injection.rampConcurrentUsers;
import static io.reactiveregistry.loadtest.dsl.Injection.rampUsers;
import static io.reactiveregistry.loadtest.dsl.Injection.rampUsersPerSec;
import static io.reactiveregistry.loadtest.dsl.Injection.stressPeakUsers;
import static io.reactiveregistry.loadtest.dsl.Scenario.scenario;
import static io.reactiveregistry.loadtest.dsl.Steps.pause;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.engine.Runner;
import io.reactiveregistry.loadtest.engine.Target;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each injection step promises an arrival schedule: checked on the schedule itself, not by sleeping. */
class InjectionTest {
  private static final Duration S = Duration.ofSeconds(1);

  private static long between(Injection injection, double fromSeconds, double toSeconds) {
    return injection.offsets().stream().filter(offset -> offset.toNanos() >= fromSeconds * 1e9
        && offset.toNanos() < toSeconds * 1e9).count();
  }

  @Test
  void stepsGivenTogetherRunOneAfterTheOther() {
    Injection steps = scenario("s").inject(nothingFor(S.multipliedBy(2)), atOnceUsers(3),
        rampUsers(4).during(S.multipliedBy(2))).injection();
    assertThat(steps.offsets()).containsExactly(S.multipliedBy(2), S.multipliedBy(2), S.multipliedBy(2),
        S.multipliedBy(2), Duration.ofMillis(2_500), S.multipliedBy(3), Duration.ofMillis(3_500));
    assertThat(steps.duration()).isEqualTo(S.multipliedBy(4));
    assertThat(steps.toString()).isEqualTo("nothingFor(PT2S), atOnceUsers(3), rampUsers(4).during(PT2S)");
  }

  @Test
  void aConstantRateStartsItsUsersEvenlyOrAsAPoissonProcess() {
    Injection even = constantUsersPerSec(10).during(S.multipliedBy(3));
    assertThat(even.users()).isEqualTo(30);
    assertThat(even.offsets().get(1).minus(even.offsets().get(0))).isEqualTo(Duration.ofMillis(100));

    Injection random = constantUsersPerSec(100).during(S.multipliedBy(10)).randomized();
    // 1,000 expected, standard deviation about 32; the seed is fixed, so the run is reproducible.
    assertThat(random.users()).isBetween(870, 1_130).isEqualTo(constantUsersPerSec(100).during(S.multipliedBy(10))
        .randomized().users());
    assertThat(random.offsets()).allMatch(offset -> offset.compareTo(S.multipliedBy(10)) < 0);
    assertThat(new HashSet<>(List.of(random.offsets().get(1).minus(random.offsets().get(0)),
        random.offsets().get(2).minus(random.offsets().get(1)), random.offsets().get(3).minus(random.offsets()
            .get(2))))).hasSizeGreaterThan(1);
    assertThatThrownBy(() -> atOnceUsers(3).randomized()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("constantUsersPerSec");
  }

  @Test
  void aRateRampGrowsLinearly() {
    Injection ramp = rampUsersPerSec(10).to(20).during(S.multipliedBy(10));
    assertThat(ramp.users()).isEqualTo(150);
    assertThat(between(ramp, 0, 1)).isBetween(10L, 11L);
    assertThat(between(ramp, 5, 6)).isBetween(15L, 16L);
    assertThat(between(ramp, 9, 10)).isBetween(19L, 20L);
    assertThat(rampUsersPerSec(20).to(10).during(S.multipliedBy(10)).users()).isEqualTo(150);
  }

  @Test
  void aStressPeakArrivesAlongAnSCurveWithinItsDuration() {
    Injection peak = stressPeakUsers(1_000).during(S.multipliedBy(10));
    assertThat(peak.users()).isEqualTo(1_000);
    assertThat(peak.offsets()).allMatch(offset -> offset.compareTo(S.multipliedBy(10)) <= 0);
    long middle = between(peak, 4.5, 5.5);
    assertThat(middle).isGreaterThan(300); // about 38 % within a standard deviation's 80 % of the centre
    assertThat(between(peak, 0, 1)).isLessThan(5);
    assertThat(between(peak, 9, 10)).isLessThan(5);
    assertThat(between(peak, 2, 3)).isLessThan(between(peak, 3, 4));
  }

  @Test
  void aClosedModelKeepsItsConcurrency() {
    Injection constant = constantConcurrentUsers(5).during(S.multipliedBy(3));
    assertThat(constant.closed()).isTrue();
    assertThat(constant.concurrency(Duration.ZERO)).isEqualTo(5);
    assertThat(constant.concurrency(S.multipliedBy(2))).isEqualTo(5);
    assertThat(constant.concurrency(S.multipliedBy(3))).isZero();

    Injection ramp = rampConcurrentUsers(2).to(10).during(S.multipliedBy(8));
    assertThat(ramp.users()).isEqualTo(10);
    assertThat(ramp.concurrency(Duration.ZERO)).isEqualTo(2);
    assertThat(ramp.concurrency(S.multipliedBy(4))).isEqualTo(6);
    assertThat(ramp.concurrency(Duration.ofMillis(7_999))).isEqualTo(9);
    assertThatThrownBy(() -> Injection.sequence(List.of(constant, ramp)))
        .hasMessageContaining("one closed-model step per population");
  }

  /**
   * The engine keeps a closed population's concurrency: 4 slots, each running 200 ms scenarios
   * one after another for 2 s, start about 40 users, never more than 4 at once. (No server: the
   * scenario only pauses.)
   */
  @Test
  void theEngineRunsAClosedModelSlotBySlot() {
    Simulation closed = Simulation.named("Closed")
        .setUp(scenario("busy").exec(pause(Duration.ofMillis(200)))
            .inject(constantConcurrentUsers(4).during(S.multipliedBy(2))));
    RunResult result = Runner.run(closed, new Target("127.0.0.1", 1), Map.of(), null, null, S,
        new PrintStream(OutputStream.nullOutputStream()));
    RequestStats users = result.stats().stream().filter(s -> s.name().equals("scenario:busy")).findFirst()
        .orElseThrow();
    assertThat(users.ko()).isZero();
    assertThat(users.count()).isBetween(32L, 44L);
    assertThat(result.metrics().activeUsersPerSecond()).allMatch(active -> active <= 4).contains(4);
  }
}
