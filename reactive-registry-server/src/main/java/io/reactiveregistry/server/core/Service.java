package io.reactiveregistry.server.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The core's record of one service. Only the core's parts ({@link ServiceCatalog}, {@link Instances}...) touch it. */
final class Service {
  final ServiceKey key;
  final boolean ephemeral;
  final Map<String, RegisteredInstance> instances = new LinkedHashMap<>();
  double protectThreshold;
  Map<String, String> metadata = Map.of();
  /** Created by an operator: stays until deleted. Created by a registration: cleaned up when empty. */
  boolean defined;
  /** The revision of the last change to this service or its instances. */
  long revision;
  /** When a service created by a registration last became empty; 0 while it has instances or was defined. */
  long emptySince;

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

  ServiceDefinition definition() {
    java.util.TreeSet<String> clusters = new java.util.TreeSet<>();
    for (RegisteredInstance instance : instances.values()) {
      clusters.add(instance.view.cluster());
    }
    return new ServiceDefinition(key, ephemeral, protectThreshold, metadata, revision, List.copyOf(clusters),
        instances.size());
  }

  int healthyCount() {
    int healthy = 0;
    for (RegisteredInstance instance : instances.values()) {
      if (instance.view.healthy()) {
        healthy++;
      }
    }
    return healthy;
  }

  /** Whether a healthy-only view of it is now in protection mode (shows every instance). */
  boolean protectionTriggered() {
    return protectThreshold > 0 && ViewRules.protectionTriggered(views(), ViewFilter.of(null, true), protectThreshold);
  }

  /** Whether its definition must survive a restart: persistent, or set by an operator. */
  boolean durable() {
    return !ephemeral || defined;
  }

  String typeName() {
    return ephemeral ? "ephemeral" : "persistent";
  }
}
