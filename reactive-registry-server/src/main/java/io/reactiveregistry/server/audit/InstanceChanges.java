package io.reactiveregistry.server.audit;

import io.reactiveregistry.protocol.message.TraceEvent.FieldChange;
import io.reactiveregistry.server.core.InstanceView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What changed between two views of an instance, field by field, for the audit trail: an
 * override's old and new values, a health flip, a re-registration's new metadata. Metadata keys
 * are named {@code metadata.<key>}; an absent value is null.
 */
final class InstanceChanges {
  private InstanceChanges() {}

  /** The fields that differ, in a fixed order; null when none does. */
  static @Nullable List<FieldChange> between(InstanceView before, InstanceView after) {
    if (before.equals(after)) {
      return null;
    }
    List<FieldChange> changes = new ArrayList<>(2);
    field(changes, "ip", before.ip(), after.ip());
    field(changes, "port", before.port(), after.port());
    field(changes, "cluster", before.cluster(), after.cluster());
    field(changes, "weight", before.weight(), after.weight());
    field(changes, "enabled", before.enabled(), after.enabled());
    field(changes, "healthy", before.healthy(), after.healthy());
    if (!before.metadata().equals(after.metadata())) {
      metadata(changes, before.metadata(), after.metadata());
    }
    return changes.isEmpty() ? null : changes;
  }

  private static void metadata(List<FieldChange> changes, Map<String, String> before, Map<String, String> after) {
    TreeSet<String> keys = new TreeSet<>(before.keySet());
    keys.addAll(after.keySet());
    for (String key : keys) {
      field(changes, "metadata." + key, before.get(key), after.get(key));
    }
  }

  private static void field(List<FieldChange> changes, String name, @Nullable Object before, @Nullable Object after) {
    if (!Objects.equals(before, after)) {
      changes.add(new FieldChange(name, before == null ? null : before.toString(),
          after == null ? null : after.toString()));
    }
  }
}
