package io.reactiveregistry.server.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The core's record of one service. Only {@link Registry} touches it. */
final class Service {
  final ServiceKey key;
  final boolean ephemeral;
  final Map<String, RegisteredInstance> instances = new LinkedHashMap<>();
  double protectThreshold;

  Service(ServiceKey key, boolean ephemeral) {
    this.key = key;
    this.ephemeral = ephemeral;
  }

  List<InstanceView> views() {
    List<InstanceView> views = new ArrayList<>(instances.size());
    for (RegisteredInstance instance : instances.values()) {
      views.add(instance.view);
    }
    return views;
  }

  String typeName() {
    return ephemeral ? "ephemeral" : "persistent";
  }
}
