package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.proto.trace.v1.Span;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.e2e.OtlpCollector;
import io.reactiveregistry.server.tracing.Tracing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client puts its requests in the caller's trace: a registration and a query made with
 * {@link RegistryClient#inTrace} reach a server that exports spans as children of the caller's
 * span, as a real OTLP/HTTP collector socket receives them; a request without one is in no trace
 * of the caller's.
 */
class TracedRequestsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TRACE_ID = "5bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER_SPAN = "10f067aa0ba902b7";

  private final OtlpCollector collector = new OtlpCollector();
  private final RegistryServer server = RegistryServer.start(TestServers.config(0).withTracing(
      new Tracing.Settings(collector.endpoint(), 0)))
      .block(Duration.ofSeconds(30));
  private final RegistryClient client = RegistryClient.builder().servers(TestServers.address(server))
      .clientName("traced").build();

  @AfterEach
  void stop() {
    client.closeAndWait();
    server.disposeNow(Duration.ofSeconds(5));
    collector.close();
  }

  private List<String> routesTracedUnderTheCaller() {
    return collector.trace(TRACE_ID).stream().filter(span -> span.parentId().equals(CALLER_SPAN))
        .map(OtlpCollector.Received::name).toList();
  }

  @Test
  void aRegistrationAndAQueryInTheCallersTraceAreItsChildrenOnTheServer() {
    String traceparent = "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01";
    Registration registration = client.register(ServiceName.of("orders"),
            InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of()))
        .contextWrite(RegistryClient.inTrace(traceparent)).block(WAIT);
    assertThat(registration).isNotNull();
    assertThat(client.query(ServiceName.of("orders")).contextWrite(RegistryClient.inTrace(traceparent)).block(WAIT)
        .instances()).hasSize(1);
    // Not in the caller's trace: nothing of it is exported (the ratio is 0 for requests without one).
    client.query(ServiceName.of("orders")).block(WAIT);
    client.query(ServiceName.of("orders")).contextWrite(RegistryClient.inTrace("not a traceparent")).block(WAIT);

    await().atMost(WAIT).untilAsserted(() -> assertThat(routesTracedUnderTheCaller())
        .containsExactlyInAnyOrder("instance.register", "service.query"));
    assertThat(collector.spans().stream().filter(span -> span.span().getKind() == Span.SpanKind.SPAN_KIND_SERVER))
        .as("only the caller's two requests were traced").hasSize(2);
  }
}
