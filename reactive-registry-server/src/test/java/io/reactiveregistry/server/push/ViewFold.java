package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.wire.WireViews;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** A view folded from a subscription's events, as a client folds it, to compare with the registry's. */
final class ViewFold {
  private final Map<String, InstanceBody> instances = new TreeMap<>();

  /** Applies one event (a BATCH: each of its events, in order). */
  void apply(ServiceEvent event) {
    switch (event.type()) {
      case "SNAPSHOT" -> {
        instances.clear();
        event.instances().forEach(instance -> instances.put(instance.instanceId(), instance));
      }
      case "UPSERT" -> instances.put(event.instance().instanceId(), event.instance());
      case "REMOVE" -> instances.remove(event.instanceId());
      case "SERVICE_DELETED" -> instances.clear();
      case "BATCH" -> event.events().forEach(this::apply);
      case "RESUMED" -> { }
      default -> throw new AssertionError("unexpected event type " + event.type());
    }
  }

  Map<String, InstanceBody> instances() {
    return instances;
  }

  /** What the fold must equal: the view as the registry holds it now, by instance id. */
  static Map<String, InstanceBody> expected(RegistryRuntime runtime, ServiceKey service, ViewFilter filter) {
    return WireViews.snapshot(runtime.read(registry -> registry.view(service, filter))).instances().stream()
        .collect(Collectors.toMap(InstanceBody::instanceId, instance -> instance, (a, b) -> a, TreeMap::new));
  }
}
