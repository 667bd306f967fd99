package io.reactiveregistry.server.e2e;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.URI;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A real OTLP/HTTP traces collector on a loopback socket: it reads the exporter's protobuf
 * requests ({@code POST /v1/traces}) and keeps every span received, with the {@code
 * service.instance.id} of the resource (the member) that sent it.
 */
public final class OtlpCollector implements AutoCloseable {
  /** A span as received, and the member (its resource's {@code service.instance.id}) that exported it. */
  public record Received(Span span, String member, String service) {
    public String traceId() {
      return hex(span.getTraceId());
    }

    public String spanId() {
      return hex(span.getSpanId());
    }

    public String parentId() {
      return hex(span.getParentSpanId());
    }

    public String name() {
      return span.getName();
    }

    public Optional<String> attribute(String key) {
      return span.getAttributesList().stream().filter(a -> a.getKey().equals(key)).map(KeyValue::getValue)
          .map(value -> value.getStringValue()).findFirst();
    }
  }

  private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();
  private final DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
      .route(routes -> routes.post("/v1/traces", (request, response) -> request.receive().aggregate().asByteArray()
          .doOnNext(this::collect)
          .then(response.status(200).header("Content-Type", "application/x-protobuf").send(Mono.empty()).then())))
      .bindNow();

  /** What a server is given as {@code --otlp-endpoint}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.port() + "/v1/traces");
  }

  /** Every span received so far. */
  public List<Received> spans() {
    return List.copyOf(received);
  }

  /** The spans received so far in the trace {@code traceId}. */
  public List<Received> trace(String traceId) {
    return received.stream().filter(span -> span.traceId().equals(traceId)).toList();
  }

  public static String hex(com.google.protobuf.ByteString bytes) {
    return HexFormat.of().formatHex(bytes.toByteArray());
  }

  private void collect(byte[] body) {
    try {
      for (ResourceSpans resource : ExportTraceServiceRequest.parseFrom(body).getResourceSpansList()) {
        String member = attribute(resource, "service.instance.id");
        String service = attribute(resource, "service.name");
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          scope.getSpansList().forEach(span -> received.add(new Received(span, member, service)));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String attribute(ResourceSpans resource, String key) {
    return resource.getResource().getAttributesList().stream().filter(a -> a.getKey().equals(key))
        .map(a -> a.getValue().getStringValue()).findFirst().orElse("");
  }

  @Override
  public void close() {
    server.disposeNow();
  }
}
