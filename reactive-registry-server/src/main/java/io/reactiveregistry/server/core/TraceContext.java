package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.trace.TraceParent;
import org.jspecify.annotations.Nullable;

/**
 * Where in a trace a change was made: the trace, and the span that made it (a request's, or its
 * replication's to this member), whose children the change's later work (its replication, its
 * pushes) is. The core only carries it; the edges read it from W3C {@code traceparent} headers
 * and metadata and record the spans.
 *
 * @param traceId 32 lowercase hex digits
 * @param spanId 16 lowercase hex digits
 * @param sampled whether the trace is recorded
 */
public record TraceContext(String traceId, String spanId, boolean sampled) {

  /** Read from a W3C {@code traceparent} value (as a replication entry or a log entry keeps it); null when absent or not valid. */
  public static @Nullable TraceContext ofTraceparent(@Nullable String traceparent) {
    return TraceParent.parse(traceparent).map(read -> new TraceContext(read.traceId(), read.parentId(), read.sampled()))
        .orElse(null);
  }

  /** The W3C {@code traceparent} value naming this span as the parent. */
  public String traceparent() {
    return new TraceParent(traceId, spanId, sampled).header();
  }
}
