package io.reactiveregistry.server.core;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A change to what must survive a restart: service definitions (of persistent services, and of
 * services an operator created or updated), persistent instances and operator overrides. The core
 * records these beside its events, in the order it decided them; storage writes them in that order
 * and replays them at start. Ephemeral instances never appear here.
 *
 * <p>Every change is a whole value or a removal of one {@link Subject}, never a delta, so applying
 * a sequence of them needs no state but the subjects themselves: replay is deterministic.
 */
public sealed interface DurableChange {

  /**
   * Changes of distinct subjects in the order they can be applied one by one: removals first
   * (instances, then overrides, then services, so a service goes after what it holds), then values
   * (services, then overrides, then instances, so an instance finds its service and override).
   */
  static List<DurableChange> inApplyOrder(Collection<DurableChange> changes) {
    List<Kind> removalOrder = List.of(Kind.INSTANCE, Kind.OVERRIDE, Kind.SERVICE);
    return changes.stream()
        .sorted(Comparator.comparing((DurableChange change) -> !change.removal())
            .thenComparing(change -> change.removal() ? removalOrder.indexOf(change.subject().kind())
                : -removalOrder.indexOf(change.subject().kind())))
        .toList();
  }

  /** What the change is about; a later change to the same subject supersedes an earlier one. */
  Subject subject();

  /** True for a removal: the subject no longer exists. */
  default boolean removal() {
    return false;
  }

  /** The identity of one durable value. {@code instanceId} is null for a service. */
  record Subject(Kind kind, ServiceKey service, String instanceId) {}

  enum Kind {
    SERVICE,
    INSTANCE,
    OVERRIDE
  }

  /** A service's definition. {@code defined}: created or updated by an operator, so kept even when empty. */
  record ServiceSaved(ServiceKey service, boolean ephemeral, double protectThreshold, Map<String, String> metadata,
      boolean defined) implements DurableChange {
    public ServiceSaved {
      metadata = Map.copyOf(metadata);
    }

    @Override
    public Subject subject() {
      return new Subject(Kind.SERVICE, service, null);
    }
  }

  /**
   * A persistent instance as registered, and its health as its checks last found it (replicated so
   * that every member of a cluster shows, and pushes, the same health).
   */
  record InstanceSaved(ServiceKey service, InstanceSpec spec, boolean healthy) implements DurableChange {
    /** A healthy instance: how it is registered, until a check says otherwise. */
    public InstanceSaved(ServiceKey service, InstanceSpec spec) {
      this(service, spec, true);
    }

    @Override
    public Subject subject() {
      return new Subject(Kind.INSTANCE, service, spec.instanceId());
    }
  }

  /** An operator's override of one instance (of either type). */
  record OverrideSaved(ServiceKey service, String instanceId, InstanceOverride value) implements DurableChange {
    @Override
    public Subject subject() {
      return new Subject(Kind.OVERRIDE, service, instanceId);
    }
  }

  /** The subject is gone. */
  record Removed(Subject subject) implements DurableChange {
    static Removed service(ServiceKey service) {
      return new Removed(new Subject(Kind.SERVICE, service, null));
    }

    static Removed instance(ServiceKey service, String instanceId) {
      return new Removed(new Subject(Kind.INSTANCE, service, instanceId));
    }

    static Removed override(ServiceKey service, String instanceId) {
      return new Removed(new Subject(Kind.OVERRIDE, service, instanceId));
    }

    @Override
    public boolean removal() {
      return true;
    }
  }
}
