package io.reactiveregistry.server.lifecycle;

import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
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
  private boolean selfPreserving;

  public LifecycleTicker(RegistryRuntime runtime) {
    this.runtime = runtime;
  }

  /** Starts ticking on {@code scheduler}: virtual time in tests, a parallel worker in production. */
  public Disposable start(Duration period, Scheduler scheduler) {
    return Flux.interval(period, period, scheduler).onBackpressureDrop().subscribe(tick -> tick());
  }

  public void tick() {
    runtime.execute(Registry::expire);
    runtime.execute(Registry::cleanUp);
    boolean now = runtime.read(Registry::selfPreserving);
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
