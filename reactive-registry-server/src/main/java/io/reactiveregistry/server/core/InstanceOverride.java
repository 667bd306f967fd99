package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.InstanceRules;
import java.util.HashMap;
import java.util.Map;

/**
 * What an operator set on an instance: each field is null when not overridden. Views show an
 * overridden {@code enabled} or {@code weight} instead of the registered one, and lay the
 * override's metadata over the registered metadata key by key.
 */
public record InstanceOverride(Boolean enabled, Double weight, Map<String, String> metadata) {
  public static final InstanceOverride NONE = new InstanceOverride(null, null, null);

  public InstanceOverride {
    metadata = metadata == null ? null : Map.copyOf(metadata);
  }

  /** The override an {@code admin.instance.update} asks for: exactly the fields given. */
  public static InstanceOverride replacing(Boolean enabled, Double weight, Map<String, String> metadata) {
    return Contract.check(() -> new InstanceOverride(enabled,
        weight == null ? null : InstanceRules.weight("weight", weight),
        metadata == null ? null : InstanceRules.metadata("metadata", metadata)));
  }

  /**
   * This override with an {@code admin.instance.patch} applied: given fields replace, absent ones
   * stay; in {@code metadata}, a key with a null value stops being overridden.
   */
  public InstanceOverride patched(Boolean newEnabled, Double newWeight, Map<String, String> metadataChanges) {
    Map<String, String> merged = metadata == null ? new HashMap<>() : new HashMap<>(metadata);
    if (metadataChanges != null) {
      metadataChanges.forEach((key, value) -> {
        if (value == null) {
          merged.remove(key);
        } else {
          merged.put(key, value);
        }
      });
    }
    return replacing(newEnabled != null ? newEnabled : enabled, newWeight != null ? newWeight : weight,
        merged.isEmpty() ? null : merged);
  }

  public boolean isEmpty() {
    return enabled == null && weight == null && (metadata == null || metadata.isEmpty());
  }

  InstanceView apply(String instanceId, InstanceSpec spec, boolean healthy, boolean ephemeral) {
    Map<String, String> shown = spec.metadata();
    if (metadata != null && !metadata.isEmpty()) {
      Map<String, String> laid = new HashMap<>(spec.metadata());
      laid.putAll(metadata);
      shown = Map.copyOf(laid);
    }
    return new InstanceView(instanceId, spec.ip(), spec.port(), spec.cluster(), weight != null ? weight : spec.weight(),
        enabled != null ? enabled : spec.enabled(), healthy, ephemeral, shown);
  }
}
