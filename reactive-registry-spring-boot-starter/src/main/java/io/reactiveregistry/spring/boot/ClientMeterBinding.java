package io.reactiveregistry.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactiveregistry.client.RegistryClient;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Hands the application's {@link MeterRegistry}, when it has one, to the client builder. A class
 * of its own so that the auto-configuration loads without Micrometer on the class path.
 */
final class ClientMeterBinding {
  private final ObjectProvider<MeterRegistry> registry;

  ClientMeterBinding(ObjectProvider<MeterRegistry> registry) {
    this.registry = registry;
  }

  void applyTo(RegistryClient.Builder builder) {
    registry.ifAvailable(builder::meterRegistry);
  }
}
