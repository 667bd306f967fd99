package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One element of a {@code service.subscribe} stream. Which fields are present depends on the type:
 * {@code SNAPSHOT} carries the snapshot fields and the {@code node} whose revisions the stream
 * carries ({@code resumed} false when it answers a resume the server could not make), {@code
 * RESUMED} (the first event of a resumed stream) the revision resumed from and the {@code node},
 * {@code UPSERT} an {@code instance}, {@code REMOVE} an {@code instanceId}, {@code
 * SERVICE_DELETED} only the revision, {@code BATCH} (only to a subscription that asked to {@code
 * coalesce}) the {@code events} that were pending together, in order, and the last one's revision.
 */
public record ServiceEvent(
    String type,
    long revision,
    @Nullable String namespace,
    @Nullable String group,
    @Nullable String service,
    @Nullable Boolean ephemeral,
    @Nullable Boolean protectionTriggered,
    @Nullable List<InstanceBody> instances,
    @Nullable InstanceBody instance,
    @Nullable String instanceId,
    @Nullable String node,
    @Nullable Boolean resumed,
    @Nullable List<ServiceEvent> events) {

  public static final String SNAPSHOT = "SNAPSHOT";
  public static final String RESUMED = "RESUMED";
  public static final String UPSERT = "UPSERT";
  public static final String REMOVE = "REMOVE";
  public static final String SERVICE_DELETED = "SERVICE_DELETED";
  public static final String BATCH = "BATCH";

  public static ServiceEvent snapshot(ServiceSnapshot s) {
    return snapshot(s, null);
  }

  /** A snapshot of {@code node}'s view. */
  public static ServiceEvent snapshot(ServiceSnapshot s, @Nullable String node) {
    return new ServiceEvent(SNAPSHOT, s.revision(), s.namespace(), s.group(), s.service(),
        s.ephemeral(), s.protectionTriggered(), s.instances(), null, null, node, null, null);
  }

  /** This snapshot, answering a resume that could not be made. */
  public ServiceEvent notResumed() {
    return new ServiceEvent(type, revision, namespace, group, service, ephemeral, protectionTriggered, instances,
        instance, instanceId, node, false, null);
  }

  /** The first event of a stream resumed after {@code revision}: the changes after it follow. */
  public static ServiceEvent resumed(long revision, String node) {
    return new ServiceEvent(RESUMED, revision, null, null, null, null, null, null, null, null, node, null, null);
  }

  public static ServiceEvent upsert(long revision, InstanceBody instance) {
    return new ServiceEvent(UPSERT, revision, null, null, null, null, null, null, instance, null, null, null, null);
  }

  public static ServiceEvent remove(long revision, String instanceId) {
    return new ServiceEvent(REMOVE, revision, null, null, null, null, null, null, null, instanceId, null, null, null);
  }

  public static ServiceEvent serviceDeleted(long revision) {
    return new ServiceEvent(SERVICE_DELETED, revision, null, null, null, null, null, null, null, null, null, null, null);
  }

  /** Several events, in order, sent as one (to a subscription that asked to coalesce). */
  public static ServiceEvent batch(List<ServiceEvent> events) {
    return new ServiceEvent(BATCH, events.get(events.size() - 1).revision(), null, null, null, null, null, null,
        null, null, null, null, List.copyOf(events));
  }
}
