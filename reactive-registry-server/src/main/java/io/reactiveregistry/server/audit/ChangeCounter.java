package io.reactiveregistry.server.audit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.reactiveregistry.server.core.ChangeCause;
import io.reactiveregistry.server.core.RegistryEvent;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Counts every change by its cause: {@code registry.changes{cause="HEARTBEAT_TIMEOUT"}}, the same
 * causes the audit trail shows. Tags are bounded: one per cause, never a service or instance.
 */
public final class ChangeCounter implements Consumer<List<RegistryEvent>> {
  private final Map<ChangeCause, Counter> counters = new EnumMap<>(ChangeCause.class);

  public ChangeCounter(MeterRegistry meters) {
    for (ChangeCause cause : ChangeCause.values()) {
      counters.put(cause, Counter.builder("registry.changes").tag("cause", cause.name())
          .description("changes to services and instances, by cause").register(meters));
    }
  }

  @Override
  public void accept(List<RegistryEvent> events) {
    for (RegistryEvent event : events) {
      counters.get(event.cause()).increment();
    }
  }
}
