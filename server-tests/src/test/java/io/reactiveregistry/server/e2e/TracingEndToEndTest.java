package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.opentelemetry.proto.common.v1.KeyValue;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
  private static final String UPSERT_TRACE = "6bf92f3577b34da6a3ce929d0e0e4736";

  private final OtlpCollector collector = new OtlpCollector();
  private final HttpClient http = HttpClient.newHttpClient();
  private ServerFixture fixture;

  @TempDir
  Path dir;

  @AfterEach
  void stop() {
    if (fixture != null) {
      fixture.close();
    }
    collector.close();
  }

  private ServerFixture start(ServerConfig config, double sampleRatio) {
    fixture = new ServerFixture(config.withTracing(new Tracing.Settings(collector.endpoint(), sampleRatio)));
    return fixture;
  }

  private List<OtlpCollector.Received> trace(String traceId) {
    return collector.trace(traceId);
  }

  private static Optional<String> attribute(Span span, String key) {
    return span.getAttributesList().stream().filter(a -> a.getKey().equals(key)).map(KeyValue::getValue)
        .map(value -> value.getStringValue()).findFirst();
  }

  private static String hex(com.google.protobuf.ByteString bytes) {
    return OtlpCollector.hex(bytes);
  }

  /** The request's span in the trace, and its children by name. */
  private record Request(Span span, Map<String, Span> stages) {}

  private Request request(String traceId, String route) {
    List<OtlpCollector.Received> spans = trace(traceId);
    OtlpCollector.Received server = spans.stream().filter(span -> span.name().equals(route)).findFirst()
        .orElseThrow();
    Map<String, Span> stages = spans.stream().filter(span -> span.parentId().equals(server.spanId()))
        .collect(Collectors.toMap(OtlpCollector.Received::name, OtlpCollector.Received::span, (first, next) -> first));
    return new Request(server.span(), stages);
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
    assertThat(collector.spans()).extracting(OtlpCollector.Received::service).contains("reactive-registry");
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
    int before = collector.spans().size();
    assertThat(post("service.query", "{\"service\":\"orders\"}", null).statusCode()).isEqualTo(200);
    assertThat(post("service.query", "{\"service\":\"orders\"}", "00-not-a-trace-01").statusCode()).isEqualTo(200);
    HttpResponse<String> marker = post("service.query", "{\"service\":\"orders\"}",
        "00-" + "11111111111111111111111111111111" + "-" + CALLER_SPAN + "-01");
    assertThat(marker.statusCode()).isEqualTo(200);
    await().atMost(WAIT).until(() -> !trace("11111111111111111111111111111111").isEmpty());
    assertThat(collector.spans()).hasSize(before + 1);

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
  void aTracedChangesPushesAreSpansOfItsTraceAtMostSixteenOfAFanOutAndExemplarsOfThePushLatency() throws Exception {
    start(ServerConfig.ephemeralLoopback(), 0);
    int subscribers = 20;
    List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<reactor.core.Disposable> streams = new java.util.ArrayList<>();
    try (WireClient watcher = fixture.connect("watcher"); WireClient app = fixture.connect("app")) {
      for (int i = 0; i < subscribers; i++) {
        streams.add(watcher.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(events::add));
      }
      await().atMost(WAIT).until(() -> events.size() == subscribers); // each one's first snapshot
      // The first registration creates the service: its subscribers get a snapshot, in the trace too.
      HttpResponse<String> registered = post("instance.register",
          "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}",
          "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01");
      assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
      await().atMost(WAIT).until(() -> events.size() == 2 * subscribers);
      assertThat(post("instance.register",
          "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":8080}}",
          "00-" + UPSERT_TRACE + "-" + CALLER_SPAN + "-01").statusCode()).isEqualTo(200);
      await().atMost(WAIT).until(() -> events.size() == 3 * subscribers);

      for (String traceId : List.of(TRACE_ID, UPSERT_TRACE)) {
        await().atMost(WAIT).until(() -> trace(traceId).stream().filter(s -> s.name().equals("push")).count()
            >= 16);
        Span request = request(traceId, "instance.register").span();
        List<OtlpCollector.Received> pushes = trace(traceId).stream().filter(span -> span.name().equals("push"))
            .toList();
        assertThat(pushes).as("a fan-out of %d records 16 pushes", subscribers).hasSize(16);
        for (OtlpCollector.Received push : pushes) {
          assertThat(push.parentId()).as("a push is a child of the request that made the change")
              .isEqualTo(hex(request.getSpanId()));
          assertThat(push.span().getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_PRODUCER);
          assertThat(push.span().getStartTimeUnixNano()).isGreaterThanOrEqualTo(request.getStartTimeUnixNano());
          assertThat(push.span().getEndTimeUnixNano()).isGreaterThanOrEqualTo(push.span().getStartTimeUnixNano());
        }
      }
      // An untraced change makes no push span.
      int pushSpans = (int) collector.spans().stream().filter(span -> span.name().equals("push")).count();
      assertThat(post("instance.register",
          "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.7\",\"port\":8080}}", null)
          .statusCode()).isEqualTo(200);
      await().atMost(WAIT).until(() -> events.size() == 4 * subscribers);
      String marker = "77777777777777777777777777777777";
      post("service.query", "{\"service\":\"orders\"}", "00-" + marker + "-" + CALLER_SPAN + "-01");
      await().atMost(WAIT).until(() -> !trace(marker).isEmpty());
      assertThat(collector.spans().stream().filter(span -> span.name().equals("push"))).hasSize(pushSpans);
    } finally {
      streams.forEach(reactor.core.Disposable::dispose);
    }

    // The push-latency histogram carries a traced push as an exemplar, in OpenMetrics.
    HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
            + fixture.server().httpPort() + "/metrics")).header("Accept", "application/openmetrics-text").timeout(WAIT)
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
        .startsWith("application/openmetrics-text"));
    assertThat(metrics.body().lines().filter(line -> line.startsWith("registry_push_latency_seconds_bucket")))
        .anySatisfy(line -> assertThat(line).containsPattern("# \\{(span_id=\"[0-9a-f]{16}\",)?trace_id=\"("
            + TRACE_ID + "|" + UPSERT_TRACE + ")\""));
    // The Prometheus text format (the default) has none.
    HttpResponse<String> text = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + fixture.server().httpPort() + "/metrics")).timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(text.body()).contains("registry_push_latency_seconds_bucket").doesNotContain("trace_id=");
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
