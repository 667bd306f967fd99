package io.reactiveregistry.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * The client's meters, named once here: {@code registry.client.connected} (1 or 0),
 * {@code registry.client.reconnects}, {@code registry.client.moves}, {@code registry.client.redo.failures}, {@code registry.client.registrations},
 * {@code registry.client.watches}. Without a {@code MeterRegistry} nothing is recorded and
 * Micrometer need not be on the class path.
 */
class ClientMeters {
  static final ClientMeters NONE = new ClientMeters();

  void connected(boolean value) {}

  void reconnected() {}

  void redoFailed() {}

  void moved() {}

  void bind(IntSupplier registrations, IntSupplier watches) {}

  static ClientMeters of(Object meterRegistry) {
    return meterRegistry == null ? NONE : new Micrometer((MeterRegistry) meterRegistry);
  }

  private static final class Micrometer extends ClientMeters {
    private final MeterRegistry registry;
    private final AtomicInteger connected = new AtomicInteger();
    private final Counter reconnects;
    private final Counter redoFailures;
    private final Counter moves;

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
