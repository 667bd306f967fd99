package io.reactiveregistry.server.core;

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
public record TraceContext(String traceId, String spanId, boolean sampled) {}
