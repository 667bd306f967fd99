package io.reactiveregistry.spring.boot;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.reactiveregistry.client.RegistryClient;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Puts the client's requests in the application's current trace: with a Micrometer Tracing
 * {@link Tracer} (Spring Boot's, over OpenTelemetry or Brave), a registration or query made
 * inside a span is sent with that span's W3C {@code traceparent}, so the registry's spans join the
 * application's trace. A class of its own so that the auto-configuration loads without Micrometer
 * Tracing on the class path.
 */
final class ClientTraceBinding {
  private static final String PAD = "0000000000000000";
  private final ObjectProvider<Tracer> tracer;

  ClientTraceBinding(ObjectProvider<Tracer> tracer) {
    this.tracer = tracer;
  }

  void applyTo(RegistryClient.Builder builder) {
    tracer.ifAvailable(spans -> builder.traceContext(() -> traceparent(spans.currentTraceContext().context())));
  }

  /** The W3C value of {@code context}: a 64-bit trace id (B3's short form) left-padded, as W3C asks. */
  static @Nullable String traceparent(@Nullable TraceContext context) {
    if (context == null) {
      return null;
    }
    String traceId = context.traceId().length() == 16 ? PAD + context.traceId() : context.traceId();
    return "00-" + traceId + "-" + context.spanId() + (Boolean.TRUE.equals(context.sampled()) ? "-01" : "-00");
  }
}
