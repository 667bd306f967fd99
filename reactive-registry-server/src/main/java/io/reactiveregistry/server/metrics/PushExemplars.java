package io.reactiveregistry.server.metrics;

import io.prometheus.metrics.tracer.common.SpanContext;
import io.reactiveregistry.server.core.TraceContext;
import org.jspecify.annotations.Nullable;

/**
 * The trace of the push being timed, for Prometheus's exemplar sampler: {@link ServerMeters#pushed}
 * names it around the recording, on the thread that records, and the sampler (which asks during
 * the recording, on the same thread) attaches it to the bucket as an exemplar ({@code trace_id},
 * {@code span_id}). No other meter is recorded while one is named, so no other meter gets one.
 * Exemplars are shown in the OpenMetrics format only (a scrape that asks for
 * {@code application/openmetrics-text}).
 */
final class PushExemplars implements SpanContext {
  private final ThreadLocal<TraceContext> current = new ThreadLocal<>();

  void naming(@Nullable TraceContext trace) {
    if (trace == null) {
      current.remove();
    } else {
      current.set(trace);
    }
  }

  @Override
  public @Nullable String getCurrentTraceId() {
    TraceContext trace = current.get();
    return trace == null ? null : trace.traceId();
  }

  @Override
  public @Nullable String getCurrentSpanId() {
    TraceContext trace = current.get();
    return trace == null ? null : trace.spanId();
  }

  @Override
  public boolean isCurrentSpanSampled() {
    TraceContext trace = current.get();
    return trace != null && trace.sampled();
  }

  @Override
  public void markCurrentSpanAsExemplar() {
    // Nothing to mark: the span is recorded by the tracing package whether or not it is an exemplar.
  }
}
