package io.reactiveregistry.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A tick that comes late means the server's threads did not run: with the system clock, the
 * heartbeat deadlines move on by the stall. A core on a test's virtual clock did not stall with
 * the threads: its deadlines stay where its clock put them (a loaded test machine's late tick
 * kept an instance alive that the test had expired on its clock).
 */
class LifecycleTickerTest {
  private static final Duration PERIOD = Duration.ofSeconds(1);
  private static final ServiceKey ORDERS = ServiceKey.of(null, null, "orders");

  private final ManualClock clock = new ManualClock(1_000_000);
  private final RegistryRuntime runtime = new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS,
      new LifecycleConfig(Duration.ofSeconds(60), Duration.ofMinutes(10), false, Duration.ofSeconds(60), 0.85),
      RandomGenerator.of("L64X128MixRandom")), new PushHub(1_000));
  private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
  /** The scheduler's time as a tick reads it: {@link #stall} makes the next tick late. */
  private final LateTicks ticks = new LateTicks(time);
  private Disposable ticker;

  @AfterEach
  void stop() {
    ticker.dispose();
    time.dispose();
  }

  /**
   * Registers an ephemeral instance (15 s to unhealthy, 30 s to removal by default), lets 31 s of
   * the core's clock pass, then lets the ticker tick 15 s late (past {@code stallAfter}, ten
   * periods): whether the instance is still registered after that tick.
   */
  private boolean registeredAfterALateTick(boolean judgesStalls) {
    ticker = new LifecycleTicker(runtime).start(PERIOD, ticks, judgesStalls);
    runtime.execute(new Command.Register(new Owner(1, "orders-app"), ORDERS, true,
        InstanceSpec.of("instance", "127.0.0.5", 8080, null, null, null, null)));
    clock.advance(Duration.ofSeconds(31));
    ticks.stall(Duration.ofSeconds(15));
    time.advanceTimeBy(PERIOD);
    return !runtime.read(reads -> reads.instanceRecords(ORDERS)).isEmpty();
  }

  @Test
  void onTheSystemClockALateTickMovesTheDeadlinesOnByTheStall() {
    assertThat(registeredAfterALateTick(true)).as("the 15 s stall moved its removal to 45 s").isTrue();
  }

  @Test
  void onAVirtualClockALateTickMovesNoDeadline() {
    assertThat(registeredAfterALateTick(false)).as("removed at 30 s of its clock, however late the tick").isFalse();
  }

  /** A virtual-time scheduler whose clock a test can push ahead of its tasks, as a stall would. */
  private static final class LateTicks implements Scheduler {
    private final VirtualTimeScheduler delegate;
    private long aheadMillis;

    LateTicks(VirtualTimeScheduler delegate) {
      this.delegate = delegate;
    }

    void stall(Duration by) {
      aheadMillis += by.toMillis();
    }

    @Override
    public long now(TimeUnit unit) {
      return unit.convert(delegate.now(TimeUnit.MILLISECONDS) + aheadMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public Disposable schedule(Runnable task) {
      return delegate.schedule(task);
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
      return delegate.schedule(task, delay, unit);
    }

    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
      return delegate.schedulePeriodically(task, initialDelay, period, unit);
    }

    @Override
    public Worker createWorker() {
      return delegate.createWorker();
    }
  }
}
