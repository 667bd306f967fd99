package io.reactiveregistry.server.lifecycle;

import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.Outcome.Counted;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * Drives the core's time-based rules every tick: one expiry pass (at most its budget, so a mass
 * expiry proceeds at a bounded rate), then empty-service and override cleanup. Logs once when
 * self-preservation starts and once when it ends.
 */
public final class LifecycleTicker {
  private static final Logger log = LoggerFactory.getLogger(LifecycleTicker.class);

  private final RegistryRuntime runtime;
  private final BooleanSupplier removesDurable;
  private boolean selfPreserving;

  public LifecycleTicker(RegistryRuntime runtime) {
    this(runtime, () -> true);
  }

  /**
   * @param removesDurable whether this node's cleanup removes durable values (empty persistent
   *     services, long-orphaned overrides): in a cluster, only the leader's, so that one member
   *     decides each removal and the log hands it to the others
   */
  public LifecycleTicker(RegistryRuntime runtime, BooleanSupplier removesDurable) {
    this.runtime = runtime;
    this.removesDurable = removesDurable;
  }

  /**
   * Starts ticking on {@code scheduler}: virtual time in tests, a parallel worker in production. A
   * tick that comes later than {@link #stallAfter} past its time means the server itself did not
   * run: the core is told how long, before it judges any deadline. Only if {@code judgesStalls}:
   * for a core timed by the system clock. A core on a test's virtual clock did not stall with the
   * threads; moving its deadlines by real milliseconds its clock never spent would keep alive
   * instances the test's clock has expired.
   */
  public Disposable start(Duration period, Scheduler scheduler, boolean judgesStalls) {
    long[] last = {scheduler.now(TimeUnit.MILLISECONDS)};
    long stallAfter = stallAfter(period).toMillis();
    return Flux.interval(period, period, scheduler).onBackpressureDrop().subscribe(tick -> {
      long now = scheduler.now(TimeUnit.MILLISECONDS);
      long late = now - last[0] - period.toMillis();
      last[0] = now;
      if (judgesStalls && late > stallAfter) {
        stalled(late);
      }
      tick();
    });
  }

  /** How late a tick may come before it counts as a stall of the server: well past any jitter. */
  static Duration stallAfter(Duration period) {
    return Duration.ofMillis(Math.max(1_000, 10 * period.toMillis()));
  }

  private void stalled(long millis) {
    int moved = ((Counted) runtime.execute(new Command.Stalled(millis))).count();
    log.warn("the server did not run for {} ms (a long GC pause, or a stopped process or VM): the heartbeat "
        + "deadlines of {} instance(s) move on by that much, so the stall costs no instance its registration",
        millis, moved);
  }

  public void tick() {
    runtime.execute(new Command.Expire());
    runtime.execute(new Command.CleanUp(removesDurable.getAsBoolean()));
    boolean now = runtime.read(RegistryReads::selfPreserving);
    if (now != selfPreserving) {
      selfPreserving = now;
      if (now) {
        log.warn("self-preservation on: far fewer heartbeats arrive than expected (a network problem?); "
            + "instances are not expired for missed heartbeats until they recover");
      } else {
        log.info("self-preservation off: heartbeats recovered; expiry resumes");
      }
    }
  }
}
