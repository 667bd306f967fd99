package io.reactiveregistry.server.core;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Operator overrides of instances (enabled, weight, metadata), applied over what the instance
 * registered to make the view subscribers see. An override outlives its instance for the retention
 * time, so an instance that re-registers (a restart, a reconnect) keeps it.
 */
final class Overrides {
  /** An override, and since when its instance has been gone (0 while it exists). */
  private static final class Kept {
    InstanceOverride value;
    long goneSince;

    Kept(InstanceOverride value) {
      this.value = value;
    }
  }

  private final Map<ServiceKey, Map<String, Kept>> byService = new HashMap<>();
  private final ChangeLog log;

  Overrides(ChangeLog log) {
    this.log = log;
  }

  /** What subscribers see of an instance: what it registered, with its override applied. */
  InstanceView project(ServiceKey key, String id, InstanceSpec spec, boolean healthy, boolean ephemeral) {
    return current(key, id).apply(id, spec, healthy, ephemeral);
  }

  InstanceOverride current(ServiceKey key, String id) {
    Kept kept = kept(key, id);
    return kept == null ? InstanceOverride.NONE : kept.value;
  }

  /** Replaces an instance's override (an empty one removes it); recorded durably when it changed. */
  void set(ServiceKey key, String id, InstanceOverride value) {
    if (value.isEmpty()) {
      Map<String, Kept> ofService = byService.get(key);
      if (ofService != null && ofService.remove(id) != null) {
        log.durable(DurableChange.Removed.override(key, id));
        if (ofService.isEmpty()) {
          byService.remove(key);
        }
      }
      return;
    }
    Kept kept = byService.computeIfAbsent(key, k -> new HashMap<>()).computeIfAbsent(id,
        i -> new Kept(InstanceOverride.NONE));
    if (!value.equals(kept.value)) {
      kept.value = value;
      log.durable(new DurableChange.OverrideSaved(key, id, value));
    }
  }

  /** The instance exists (again): its override is kept without limit. */
  void present(ServiceKey key, String id) {
    Kept kept = kept(key, id);
    if (kept != null) {
      kept.goneSince = 0;
    }
  }

  /** The instance has gone: its override's retention time starts. */
  void gone(ServiceKey key, String id, long now) {
    Kept kept = kept(key, id);
    if (kept != null) {
      kept.goneSince = now;
    }
  }

  /** Restored from storage at start: it waits, from now, for its instance. */
  void restore(ServiceKey key, String id, InstanceOverride value, long now) {
    Kept kept = new Kept(value);
    kept.goneSince = now;
    byService.computeIfAbsent(key, k -> new HashMap<>()).put(id, kept);
  }

  /** Removes, durably, overrides whose instance has been gone for {@code retentionMs}. */
  void prune(long now, long retentionMs) {
    for (Iterator<Map.Entry<ServiceKey, Map<String, Kept>>> services = byService.entrySet().iterator();
        services.hasNext(); ) {
      Map.Entry<ServiceKey, Map<String, Kept>> service = services.next();
      for (Iterator<Map.Entry<String, Kept>> it = service.getValue().entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Kept> override = it.next();
        if (override.getValue().goneSince != 0 && now - override.getValue().goneSince >= retentionMs) {
          it.remove();
          log.durable(DurableChange.Removed.override(service.getKey(), override.getKey()));
        }
      }
      if (service.getValue().isEmpty()) {
        services.remove();
      }
    }
  }

  /** The subjects of every override, for a comparison with what storage holds. */
  void subjects(Consumer<DurableChange.Subject> into) {
    byService.forEach((key, ofService) -> ofService.keySet().forEach(id ->
        into.accept(new DurableChange.Subject(DurableChange.Kind.OVERRIDE, key, id))));
  }

  private Kept kept(ServiceKey key, String id) {
    Map<String, Kept> ofService = byService.get(key);
    return ofService == null ? null : ofService.get(id);
  }
}
