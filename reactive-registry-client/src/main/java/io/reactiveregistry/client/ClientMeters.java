package io.reactiveregistry.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.reactiveregistry.protocol.LatencyBuckets;
import io.reactiveregistry.protocol.Route;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntSupplier;
import reactor.core.publisher.Mono;

/**
 * The client's meters, named once here: {@code registry.client.connected} (1 or 0),
 * {@code registry.client.reconnects}, {@code registry.client.moves}, {@code registry.client.redo.failures}, {@code registry.client.registrations},
 * {@code registry.client.watches}, {@code registry.client.requests{route, outcome}} (a histogram with
 * the server's buckets). Without a {@code MeterRegistry} nothing is recorded and
 * Micrometer need not be on the class path.
 */
class ClientMeters {
  static final ClientMeters NONE = new ClientMeters();

  void connected(boolean value) {}

  void reconnected() {}

  void redoFailed() {}

  void moved() {}

  void bind(IntSupplier registrations, IntSupplier watches) {}

  /** {@code request}, its time from subscription to answer or error recorded under its route. */
  <T> Mono<T> timed(Route route, Mono<T> request) {
    return request;
  }

  static ClientMeters of(Object meterRegistry) {
    return meterRegistry == null ? NONE : new Micrometer((MeterRegistry) meterRegistry);
  }

  private static final class Micrometer extends ClientMeters {
    private final MeterRegistry registry;
    private final AtomicInteger connected = new AtomicInteger();
    private final Counter reconnects;
    private final Counter redoFailures;
    private final Counter moves;

    /** Each route's timers, ok and error, made at its first request: an application's scrape carries only those it used. */
    private final AtomicReferenceArray<Timer> requests = new AtomicReferenceArray<>(Route.values().length * 2);

    Micrometer(MeterRegistry registry) {
      this.registry = registry;
      Gauge.builder("registry.client.connected", connected, AtomicInteger::get)
          .description("1 while the client holds a connection to a registry server").register(registry);
      this.reconnects = Counter.builder("registry.client.reconnects")
          .description("connections made after the first").register(registry);
      this.redoFailures = Counter.builder("registry.client.redo.failures")
          .description("failed attempts to register an instance again on a new connection").register(registry);
      this.moves = Counter.builder("registry.client.moves")
          .description("connections moved to another cluster member at the server's request").register(registry);
    }

    private Timer requestTimer(Route route, boolean ok) {
      int slot = route.ordinal() * 2 + (ok ? 0 : 1);
      Timer timer = requests.get(slot);
      if (timer == null) { // two first requests may both register it: Micrometer answers the same timer
        timer = Timer.builder("registry.client.requests").tag("route", route.routeName())
            .tag("outcome", ok ? "ok" : "error")
            .description("request-response round trips to the registry, by route and outcome (from sending to "
                + "the answer, network and server together)")
            .serviceLevelObjectives(LatencyBuckets.all()).register(registry);
        requests.set(slot, timer);
      }
      return timer;
    }

    @Override
    <T> Mono<T> timed(Route route, Mono<T> request) {
      return Mono.defer(() -> {
        long start = System.nanoTime();
        return request
            .doOnSuccess(answer -> requestTimer(route, true).record(System.nanoTime() - start, TimeUnit.NANOSECONDS))
            .doOnError(error -> requestTimer(route, false).record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
      });
    }

    @Override
    void moved() {
      moves.increment();
    }

    @Override
    void redoFailed() {
      redoFailures.increment();
    }

    @Override
    void connected(boolean value) {
      connected.set(value ? 1 : 0);
    }

    @Override
    void reconnected() {
      reconnects.increment();
    }

    @Override
    void bind(IntSupplier registrations, IntSupplier watches) {
      // Micrometer holds a gauge's state weakly: these suppliers exist only here, so hold them strongly.
      Gauge.builder("registry.client.registrations", registrations, IntSupplier::getAsInt).strongReference(true)
          .description("instances this client keeps registered").register(registry);
      Gauge.builder("registry.client.watches", watches, IntSupplier::getAsInt).strongReference(true)
          .description("distinct service views this client watches").register(registry);
    }
  }
}
