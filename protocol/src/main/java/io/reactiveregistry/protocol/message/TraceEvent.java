package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One element of an {@code admin.trace} stream and of {@code admin.trace.query}'s history.
 * {@code changes}: for an instance that changed, each field whose value did ({@code metadata.k}
 * for a metadata key), with its value before and after; null when it appeared or went.
 * {@code reason}: why, in words, where the cause alone does not say: a health check's outcome
 * ({@code "HTTP 503"}, {@code "connection refused"}, {@code "timed out after 2000 ms"}).
 * {@code traceId}: the W3C trace of the request that made the change, when the server recorded
 * its span (tracing on, the request sampled): the id to look the change up in the trace viewer.
 */
public record TraceEvent(
    @Nullable Long time, @Nullable Long revision, @Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable String instanceId,
    @Nullable String cause, @Nullable String connection, @Nullable String principal, @Nullable String node,
    @Nullable Long missed, @Nullable List<FieldChange> changes, @Nullable String reason,
    @Nullable String traceId) {

  /** A field of an instance that changed: its value before and after (null: absent). */
  public record FieldChange(String field, @Nullable String from, @Nullable String to) {}
}
