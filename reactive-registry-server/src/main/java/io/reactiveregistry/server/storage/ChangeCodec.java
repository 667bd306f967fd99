package io.reactiveregistry.server.storage;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.DurableChange.InstanceSaved;
import io.reactiveregistry.server.core.DurableChange.OverrideSaved;
import io.reactiveregistry.server.core.DurableChange.Removed;
import io.reactiveregistry.server.core.DurableChange.ServiceSaved;
import io.reactiveregistry.server.core.DurableChange.Subject;
import io.reactiveregistry.server.core.InstanceOverride;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.TraceContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The on-disk form of durable changes: JSON, one object per change, so that a log entry or a
 * snapshot line can be read by a person with {@code jq}. Log entries are
 * {@code {"revision": n, "changes": [...]}}; snapshot lines are single changes.
 */
final class ChangeCodec {
  private static final ObjectMapper mapper = new ObjectMapper()
      .setSerializationInclusion(JsonInclude.Include.NON_NULL)
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private ChangeCodec() {}

  /**
   * One log entry: the changes of one or more commands, and the core's revision after them. In a
   * cluster, {@code origin} names the process that wrote it (a member's id and a per-start
   * nonce) and {@code firstWrite}..{@code lastWrite} its writes in the entry, so that the writer
   * recognises its own entries when they are applied; absent in entries of a single node.
   */
  record Entry(long revision, List<StoredChange> changes, String origin, Long firstWrite, Long lastWrite) {
    Entry(long revision, List<StoredChange> changes) {
      this(revision, changes, null, null, null);
    }
  }

  /**
   * One change, flat. {@code op} is {@code service}, {@code instance}, {@code override} or
   * {@code remove} (with {@code kind}); fields that do not apply are absent. In a log entry,
   * {@code traceparent} names the traced request that made it (W3C form), so that the members that
   * apply it follow the same trace; snapshot lines keep values, never a trace.
   */
  record StoredChange(String op, String kind, String namespace, String group, String service, Boolean ephemeral,
      Double protectThreshold, Boolean defined, String instanceId, String ip, Integer port, String cluster,
      Double weight, Boolean enabled, Map<String, String> metadata, Boolean healthy, String traceparent) {

    StoredChange(String op, String kind, String namespace, String group, String service, Boolean ephemeral,
        Double protectThreshold, Boolean defined, String instanceId, String ip, Integer port, String cluster,
        Double weight, Boolean enabled, Map<String, String> metadata, Boolean healthy) {
      this(op, kind, namespace, group, service, ephemeral, protectThreshold, defined, instanceId, ip, port, cluster,
          weight, enabled, metadata, healthy, null);
    }

    StoredChange traced(TraceContext trace) {
      return new StoredChange(op, kind, namespace, group, service, ephemeral, protectThreshold, defined, instanceId, ip,
          port, cluster, weight, enabled, metadata, healthy, trace.traceparent());
    }

    /** The trace the change was made in; null for none (or one that does not parse: the change is what matters). */
    TraceContext trace() {
      return TraceContext.ofTraceparent(traceparent);
    }
  }

  static byte[] encodeEntry(List<DurableChange> changes, long revision) {
    return encodeEntry(changes, List.of(), revision, null, 0, 0);
  }

  /**
   * @param traces empty when no change was traced; else the trace of each change (null for none),
   *     in the order of {@code changes}
   */
  static byte[] encodeEntry(List<DurableChange> changes, List<TraceContext> traces, long revision, String origin,
      long firstWrite, long lastWrite) {
    List<StoredChange> stored = new ArrayList<>(changes.size());
    for (int i = 0; i < changes.size(); i++) {
      StoredChange change = stored(changes.get(i));
      TraceContext trace = traces.isEmpty() ? null : traces.get(i);
      stored.add(trace == null ? change : change.traced(trace));
    }
    try {
      return mapper.writeValueAsBytes(origin == null ? new Entry(revision, stored)
          : new Entry(revision, stored, origin, firstWrite, lastWrite));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode durable changes", e);
    }
  }

  static Entry decodeEntry(InputStream in) {
    try {
      return mapper.readValue(in, Entry.class);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable log entry", e);
    }
  }

  static String encodeLine(Object value) {
    try {
      return mapper.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + value, e);
    }
  }

  static <T> T decodeLine(String line, Class<T> type) {
    try {
      return mapper.readValue(line, type);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("unreadable snapshot line: " + line, e);
    }
  }

  static StoredChange stored(DurableChange change) {
    if (change instanceof ServiceSaved s) {
      return new StoredChange("service", null, s.service().namespace(), s.service().group(), s.service().service(),
          s.ephemeral(), s.protectThreshold(), s.defined(), null, null, null, null, null, null, s.metadata(), null);
    }
    if (change instanceof InstanceSaved i) {
      return new StoredChange("instance", null, i.service().namespace(), i.service().group(), i.service().service(),
          null, null, null, null, i.spec().ip(), i.spec().port(), i.spec().cluster(), i.spec().weight(),
          i.spec().enabled(), i.spec().metadata(), i.healthy() ? null : false);
    }
    if (change instanceof OverrideSaved o) {
      return new StoredChange("override", null, o.service().namespace(), o.service().group(), o.service().service(),
          null, null, null, o.instanceId(), null, null, null, o.value().weight(), o.value().enabled(),
          o.value().metadata(), null);
    }
    Subject subject = ((Removed) change).subject();
    return new StoredChange("remove", subject.kind().name(), subject.service().namespace(), subject.service().group(),
        subject.service().service(), null, null, null, subject.instanceId(), null, null, null, null, null, null, null);
  }

  static DurableChange change(StoredChange s) {
    ServiceKey service = new ServiceKey(s.namespace(), s.group(), s.service());
    return switch (s.op()) {
      case "service" -> new ServiceSaved(service, s.ephemeral(), s.protectThreshold(), orEmpty(s.metadata()),
          s.defined());
      case "instance" -> new InstanceSaved(service,
          new InstanceSpec(s.ip(), s.port(), s.cluster(), s.weight(), s.enabled(), orEmpty(s.metadata())),
          s.healthy() == null || s.healthy());
      case "override" -> new OverrideSaved(service, s.instanceId(),
          new InstanceOverride(s.enabled(), s.weight(), s.metadata()));
      case "remove" -> new Removed(new Subject(DurableChange.Kind.valueOf(s.kind()), service, s.instanceId()));
      default -> throw new IllegalStateException("unknown stored change '" + s.op() + "'");
    };
  }

  private static Map<String, String> orEmpty(Map<String, String> metadata) {
    return metadata == null ? Map.of() : metadata;
  }
}
