package io.reactiveregistry.server.replication;

import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.ReplicaChange;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.TraceContext;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Claims to frame entries and back; entries from a peer are validated as a registration would be. */
final class ReplicaCodec {
  private ReplicaCodec() {}

  static ReplicaFrame.Entry entry(ReplicaChange change) {
    ServiceKey key = change.service();
    if (change instanceof ReplicaChange.Claimed claim) {
      InstanceSpec spec = claim.instance();
      return new ReplicaFrame.Entry(key.namespace(), key.group(), key.service(), null, spec.ip(), spec.port(),
          spec.cluster(), spec.weight(), spec.enabled(), spec.metadata().isEmpty() ? null : spec.metadata(),
          claim.healthy(), claim.stamp(), null, null, traceparent(change));
    }
    ReplicaChange.Withdrawn withdrawn = (ReplicaChange.Withdrawn) change;
    return new ReplicaFrame.Entry(key.namespace(), key.group(), key.service(), change.instanceId(), null, null, null,
        null, null, null, null, withdrawn.takenOverBy() == null ? null : withdrawn.stamp(), true,
        withdrawn.takenOverBy(), traceparent(change));
  }

  private static @Nullable String traceparent(ReplicaChange change) {
    TraceContext trace = change.trace();
    return trace == null ? null : trace.traceparent();
  }

  /** A peer's trace context; one that does not parse is dropped (the change is what matters). */
  private static @Nullable TraceContext trace(ReplicaFrame.Entry entry) {
    return TraceContext.ofTraceparent(entry.traceparent());
  }

  static List<ReplicaFrame.Entry> entries(List<? extends ReplicaChange> changes) {
    List<ReplicaFrame.Entry> entries = new ArrayList<>(changes.size());
    for (ReplicaChange change : changes) {
      entries.add(entry(change));
    }
    return entries;
  }

  static List<ReplicaChange> changes(List<ReplicaFrame.Entry> entries) {
    List<ReplicaChange> changes = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      changes.add(change("entries[" + i + "]", entries.get(i)));
    }
    return changes;
  }

  private static ReplicaChange change(String field, ReplicaFrame.Entry entry) {
    ServiceKey key = ServiceKey.of(entry.namespace(), entry.group(), entry.service());
    if (Boolean.TRUE.equals(entry.withdrawn())) {
      if (entry.instanceId() == null) {
        throw new IllegalArgumentException(field + ".instanceId is required for a withdrawal");
      }
      if (entry.takenOverBy() != null && entry.stamp() == null) {
        throw new IllegalArgumentException(field + ".stamp is required with " + field + ".takenOverBy");
      }
      return new ReplicaChange.Withdrawn(key, entry.instanceId(), entry.takenOverBy(),
          entry.takenOverBy() == null ? 0 : entry.stamp(), trace(entry));
    }
    if (entry.stamp() == null || entry.healthy() == null) {
      throw new IllegalArgumentException(field + ".stamp and " + field + ".healthy are required for a claim");
    }
    InstanceSpec spec = InstanceSpec.of(field, entry.ip(), entry.port(), entry.cluster(), entry.weight(),
        entry.enabled(), entry.metadata());
    return new ReplicaChange.Claimed(key, spec, entry.healthy(), entry.stamp(), trace(entry));
  }
}
