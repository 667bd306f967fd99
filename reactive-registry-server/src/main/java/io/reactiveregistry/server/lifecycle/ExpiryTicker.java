package io.reactiveregistry.server.lifecycle;

import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * Applies heartbeat deadlines every tick. The core only looks at instances whose deadline has
 * come, within a budget per pass; a tick runs a few passes so a mass expiry catches up quickly
 * without holding the registry for long at a time.
 */
public final class ExpiryTicker {
  private static final int MAX_PASSES_PER_TICK = 4;

  private final RegistryRuntime runtime;
  private final int budgetPerPass;

  public ExpiryTicker(RegistryRuntime runtime, int budgetPerPass) {
    this.runtime = runtime;
    this.budgetPerPass = budgetPerPass;
  }

  /** Starts ticking on {@code scheduler}; virtual time in tests, a parallel worker in production. */
  public Disposable start(Duration period, Scheduler scheduler) {
    return Flux.interval(period, period, scheduler).subscribe(tick -> tick());
  }

  /** One tick: expiry passes until nothing more is due or the pass limit is reached. */
  public void tick() {
    for (int pass = 0; pass < MAX_PASSES_PER_TICK; pass++) {
      int looked = runtime.execute(Registry::expire);
      if (looked < budgetPerPass) {
        return;
      }
    }
  }
}
