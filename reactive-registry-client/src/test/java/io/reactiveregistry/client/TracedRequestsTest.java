package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.tracing.Tracing;
import java.net.URI;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

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

  private final ConcurrentLinkedQueue<Span> received = new ConcurrentLinkedQueue<>();
  private final DisposableServer collector = HttpServer.create().host("127.0.0.1").port(0)
      .route(routes -> routes.post("/v1/traces", (request, response) -> request.receive().aggregate().asByteArray()
          .doOnNext(this::collect)
          .then(response.status(200).header("Content-Type", "application/x-protobuf").send(Mono.empty()).then())))
      .bindNow();
  private final RegistryServer server = RegistryServer.start(TestServers.config(0).withTracing(
      new Tracing.Settings(URI.create("http://127.0.0.1:" + collector.port() + "/v1/traces"), 0)))
      .block(Duration.ofSeconds(30));
  private final RegistryClient client = RegistryClient.builder().servers(TestServers.address(server))
      .clientName("traced").build();

  @AfterEach
  void stop() {
    client.closeAndWait();
    server.disposeNow(Duration.ofSeconds(5));
    collector.disposeNow();
  }

  private void collect(byte[] body) {
    try {
      for (ResourceSpans resource : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          received.addAll(scope.getSpansList());
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private List<String> routesTracedUnderTheCaller() {
    return received.stream()
        .filter(span -> HexFormat.of().formatHex(span.getTraceId().toByteArray()).equals(TRACE_ID))
        .filter(span -> HexFormat.of().formatHex(span.getParentSpanId().toByteArray()).equals(CALLER_SPAN))
        .map(Span::getName).toList();
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
    assertThat(received.stream().filter(span -> span.getKind() == Span.SpanKind.SPAN_KIND_SERVER))
        .as("only the caller's two requests were traced").hasSize(2);
  }
}
