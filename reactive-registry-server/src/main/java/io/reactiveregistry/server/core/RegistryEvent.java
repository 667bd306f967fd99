package io.reactiveregistry.server.core;

import org.jspecify.annotations.Nullable;

/** A change made by one command, stamped with its own revision. */
public sealed interface RegistryEvent {
  ServiceKey service();

  long revision();

  ChangeCause cause();

  /** The connection that made the change; null when the server did (expiry, cleanup). */
  Owner actor();

  /** The authenticated principal the change was made for; null when none (or the server made it). */
  @Nullable String principal();

  /**
   * Where in a trace the change was made (the span of the request, or of its replication to this
   * member), when that span was recorded; null otherwise. Pushes of the change are its children.
   */
  @Nullable TraceContext trace();

  /** The trace of the request that made the change, when it was traced; null otherwise. */
  default @Nullable String traceId() {
    TraceContext trace = trace();
    return trace == null ? null : trace.traceId();
  }

  /**
   * An instance appeared or changed; {@code instance} is its new view, {@code before} the one the
   * previous event about it carried (null when it appeared); {@code reason}, where the cause alone
   * does not say why (a health check's outcome), in words.
   */
  record InstanceUpserted(ServiceKey service, long revision, InstanceView instance, @Nullable InstanceView before,
      ChangeCause cause, Owner actor, @Nullable String principal, @Nullable String reason,
      @Nullable TraceContext trace)
      implements RegistryEvent {}

  /** An instance left the service; {@code instance} is its last view. */
  record InstanceRemoved(ServiceKey service, long revision, InstanceView instance, ChangeCause cause, Owner actor,
      @Nullable String principal, @Nullable TraceContext trace)
      implements RegistryEvent {}

  /** The service's definition changed (created by an operator, protection threshold, metadata). */
  record ServiceUpdated(ServiceKey service, long revision, ChangeCause cause, Owner actor,
      @Nullable String principal, @Nullable TraceContext trace) implements RegistryEvent {}

  /** The service itself is gone. */
  record ServiceDeleted(ServiceKey service, long revision, ChangeCause cause, Owner actor,
      @Nullable String principal, @Nullable TraceContext trace) implements RegistryEvent {}
}
