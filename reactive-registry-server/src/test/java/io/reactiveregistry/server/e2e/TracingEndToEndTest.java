package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.codec.TraceMetadata;
import io.reactiveregistry.protocol.message.TraceHistory;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.storage.StorageConfig;
import io.reactiveregistry.server.tracing.Tracing;
import io.rsocket.util.ByteBufPayload;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * One change followed end to end: a caller's W3C trace context, sent in the {@code traceparent}
 * header or RSocket's trace metadata entry, is the parent of the server's span for the request, and
 * the spans of its stages (decoding, applying, the Raft commit) are that span's children, as a real
 * OTLP/HTTP collector (a socket here, reading the exporter's protobuf) receives them.
 */
class TracingEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER_SPAN = "00f067aa0ba902b7";

  private final ConcurrentLinkedQueue<Span> received = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> services = new ConcurrentLinkedQueue<>();
  private final DisposableServer collector = HttpServer.create().host("127.0.0.1").port(0)
      .route(routes -> routes.post("/v1/traces", (request, response) -> request.receive().aggregate().asByteArray()
          .doOnNext(this::collect)
          .then(response.status(200).header("Content-Type", "application/x-protobuf").send(Mono.empty()).then())))
      .bindNow();
  private final HttpClient http = HttpClient.newHttpClient();
  private ServerFixture fixture;

  @TempDir
  Path dir;

  @AfterEach
  void stop() {
    if (fixture != null) {
      fixture.close();
    }
    collector.disposeNow();
  }

  private void collect(byte[] body) {
    try {
      for (ResourceSpans resource : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
        resource.getResource().getAttributesList().stream().filter(a -> a.getKey().equals("service.name"))
            .forEach(a -> services.add(a.getValue().getStringValue()));
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          received.addAll(scope.getSpansList());
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private ServerFixture start(ServerConfig config, double sampleRatio) {
    fixture = new ServerFixture(config.withTracing(new Tracing.Settings(
        URI.create("http://127.0.0.1:" + collector.port() + "/v1/traces"), sampleRatio)));
    return fixture;
  }

  private static String hex(com.google.protobuf.ByteString bytes) {
    return HexFormat.of().formatHex(bytes.toByteArray());
  }

  private List<Span> trace(String traceId) {
    return received.stream().filter(span -> hex(span.getTraceId()).equals(traceId)).toList();
  }

  private static Optional<String> attribute(Span span, String key) {
    return span.getAttributesList().stream().filter(a -> a.getKey().equals(key)).map(KeyValue::getValue)
        .map(value -> value.getStringValue()).findFirst();
  }

  /** The request's span in the trace, and its children by name. */
  private record Request(Span span, Map<String, Span> stages) {}

  private Request request(String traceId, String route) {
    List<Span> spans = trace(traceId);
    Span server = spans.stream().filter(span -> span.getName().equals(route)).findFirst().orElseThrow();
    Map<String, Span> stages = spans.stream()
        .filter(span -> hex(span.getParentSpanId()).equals(hex(server.getSpanId())))
        .collect(Collectors.toMap(Span::getName, span -> span));
    return new Request(server, stages);
  }

  private HttpResponse<String> post(String route, String body, String traceparent) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.server().httpPort()
        + "/api/v1/" + route)).timeout(WAIT).POST(HttpRequest.BodyPublishers.ofString(body));
    if (traceparent != null) {
      request.header("traceparent", traceparent);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void anHttpCallersTraceHoldsTheRequestAndItsStagesAndARefusalSaysItsCode() throws Exception {
    start(ServerConfig.ephemeralLoopback(), 0);
    HttpResponse<String> registered = post("instance.register",
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}",
        "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01");
    assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);

    await().atMost(WAIT).until(() -> trace(TRACE_ID).size() >= 3);
    Request request = request(TRACE_ID, "instance.register");
    assertThat(hex(request.span().getParentSpanId())).as("the caller's span is the parent").isEqualTo(CALLER_SPAN);
    assertThat(request.span().getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
    assertThat(attribute(request.span(), "rpc.method")).contains("instance.register");
    assertThat(request.stages()).containsOnlyKeys("decode", "apply");
    for (Span stage : request.stages().values()) {
      assertThat(stage.getStartTimeUnixNano()).as(stage.getName())
          .isBetween(request.span().getStartTimeUnixNano(), request.span().getEndTimeUnixNano());
      assertThat(stage.getEndTimeUnixNano()).as(stage.getName()).isLessThanOrEqualTo(request.span().getEndTimeUnixNano());
    }
    assertThat(services).contains("reactive-registry");
    // The change the traced request made leads to its trace from the audit history.
    HttpResponse<String> history = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + fixture.server().httpPort() + "/api/v1/trace/history?service=orders")).timeout(WAIT).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(JsonCodec.json().decode(history.body().getBytes(StandardCharsets.UTF_8), TraceHistory.class).events())
        .singleElement().satisfies(event -> {
          assertThat(event.cause()).isEqualTo("REGISTER");
          assertThat(event.traceId()).isEqualTo(TRACE_ID);
        });

    // A refusal is in the trace too, with the contract's code.
    String refusedTrace = "0af7651916cd43dd8448eb211c80319c";
    HttpResponse<String> refused = post("instance.register", "{\"service\":\"orders\",\"instance\":{\"port\":8080}}",
        "00-" + refusedTrace + "-b7ad6b7169203331-01");
    assertThat(refused.statusCode()).isEqualTo(400);
    await().atMost(WAIT).until(() -> !trace(refusedTrace).isEmpty());
    Span refusal = request(refusedTrace, "instance.register").span();
    assertThat(attribute(refusal, "registry.error.code")).contains("INVALID_PARAM");
    assertThat(refusal.getStatus().getCode().name()).isEqualTo("STATUS_CODE_ERROR");

    // Without a trace context, at a ratio of 0, nothing is traced; an invalid traceparent is ignored
    // (the request is served) and, unsampled, makes no trace either.
    int before = received.size();
    assertThat(post("service.query", "{\"service\":\"orders\"}", null).statusCode()).isEqualTo(200);
    assertThat(post("service.query", "{\"service\":\"orders\"}", "00-not-a-trace-01").statusCode()).isEqualTo(200);
    HttpResponse<String> marker = post("service.query", "{\"service\":\"orders\"}",
        "00-" + "11111111111111111111111111111111" + "-" + CALLER_SPAN + "-01");
    assertThat(marker.statusCode()).isEqualTo(200);
    await().atMost(WAIT).until(() -> !trace("11111111111111111111111111111111").isEmpty());
    assertThat(received).hasSize(before + 1);

    // A change made outside any recorded trace has no trace id in the history.
    assertThat(post("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":8080}}",
        null).statusCode()).isEqualTo(200);
    HttpResponse<String> later = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + fixture.server().httpPort() + "/api/v1/trace/history?service=orders&instance=127.0.0.6%238080%23DEFAULT"))
        .timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(JsonCodec.json().decode(later.body().getBytes(StandardCharsets.UTF_8), TraceHistory.class).events())
        .singleElement().satisfies(event -> assertThat(event.traceId()).isNull());

    // A caller that did not sample its trace is not sampled here either.
    assertThat(post("service.query", "{\"service\":\"orders\"}",
        "00-" + "22222222222222222222222222222222" + "-" + CALLER_SPAN + "-00").statusCode()).isEqualTo(200);
    HttpResponse<String> last = post("service.query", "{\"service\":\"orders\"}",
        "00-" + "33333333333333333333333333333333" + "-" + CALLER_SPAN + "-01");
    assertThat(last.statusCode()).isEqualTo(200);
    await().atMost(WAIT).until(() -> !trace("33333333333333333333333333333333").isEmpty());
    assertThat(trace("22222222222222222222222222222222")).isEmpty();
  }

  @Test
  void anRSocketCallersDurableRegistrationIsTracedThroughTheRaftCommit() throws Exception {
    start(ServerConfig.ephemeralLoopback().withStorage(StorageConfig.onDisk(dir.resolve("data"))), 0);
    try (WireClient client = fixture.connect("traced")) {
      ByteBuf metadata = RouteMetadata.encode(ByteBufAllocator.DEFAULT, "instance.register");
      CompositeByteBuf composite = metadata instanceof CompositeByteBuf c ? c
          : ByteBufAllocator.DEFAULT.compositeBuffer().addComponent(true, metadata);
      TraceMetadata.add(composite, ByteBufAllocator.DEFAULT,
          TraceParent.parse("00-" + TRACE_ID + "-" + CALLER_SPAN + "-01").orElseThrow());
      String answer = client.rsocket().requestResponse(ByteBufPayload.create(Unpooled.copiedBuffer(
              "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.6\",\"port\":5432,"
                  + "\"metadata\":{\"health.check.enabled\":\"false\"}}}", StandardCharsets.UTF_8), composite))
          .map(payload -> {
            try {
              return payload.getDataUtf8();
            } finally {
              payload.release();
            }
          })
          .block(WAIT);
      assertThat(answer).contains("127.0.0.6#5432#DEFAULT");
    }
    await().atMost(WAIT).until(() -> trace(TRACE_ID).size() >= 3);
    Request request = request(TRACE_ID, "instance.register");
    assertThat(hex(request.span().getParentSpanId())).isEqualTo(CALLER_SPAN);
    assertThat(request.stages()).containsOnlyKeys("decode", "commit");
    Span commit = request.stages().get("commit");
    assertThat(commit.getEndTimeUnixNano()).isGreaterThan(commit.getStartTimeUnixNano())
        .isLessThanOrEqualTo(request.span().getEndTimeUnixNano());
  }

  @Test
  void theReadmesTracedRegistrationJoinsTheCallersTrace() throws Exception {
    start(ServerConfig.ephemeralLoopback(), 0);
    List<String> lines = ReadmeShell.firstBlockUnder("### Tracing a change");
    String command = String.join("\n", lines).replace("7080", String.valueOf(fixture.server().httpPort()));
    assertThat(command).startsWith("curl ").contains("traceparent: 00-" + TRACE_ID + "-" + CALLER_SPAN + "-01");
    ReadmeShell.Ran ran = ReadmeShell.run("true", command);
    assertThat(ran.exit()).as(ran.output()).isZero();
    assertThat(ran.output()).contains("\"instanceId\":\"127.0.0.5#8080#DEFAULT\"");
    await().atMost(WAIT).until(() -> trace(TRACE_ID).size() >= 3);
    assertThat(hex(request(TRACE_ID, "instance.register").span().getParentSpanId())).isEqualTo(CALLER_SPAN);
  }

  @Test
  void withoutAnEndpointNothingIsMade() {
    Tracing off = Tracing.of(Tracing.Settings.DEFAULTS, "n1", "test");
    assertThat(off).isSameAs(Tracing.OFF);
    assertThat(off.on()).isFalse();
    assertThat(off.request(io.reactiveregistry.protocol.Route.INSTANCE_REGISTER,
        TraceParent.parse("00-" + TRACE_ID + "-" + CALLER_SPAN + "-01").orElseThrow(), System.nanoTime()))
        .isSameAs(io.reactiveregistry.server.tracing.RequestSpan.NONE);
  }
}
