package io.reactiveregistry.server.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.SslContext;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.tcp.TcpClient;

/** A bare RSocket client speaking the contract: a route in composite metadata and a JSON body. */
public final class WireClient implements AutoCloseable {
  private final RSocket rsocket;
  /** The bearer token every request carries in its own metadata; null for none. */
  private final String requestToken;

  private WireClient(RSocket rsocket) {
    this(rsocket, null);
  }

  private WireClient(RSocket rsocket, String requestToken) {
    this.rsocket = rsocket;
    this.requestToken = requestToken;
  }

  /** The same connection, each request carrying {@code token} in its metadata (rsc's --authBearer). */
  public WireClient bearer(String token) {
    return new WireClient(rsocket, token);
  }

  /** A connection whose SETUP carries {@code token} (null: none) in its metadata. */
  public static WireClient connectWithToken(int port, String client, String token) {
    return new WireClient(connector(client, token)
        .connect(TcpClientTransport.create(TcpClient.newConnection().host("127.0.0.1").port(port)))
        .block(Duration.ofSeconds(5)));
  }

  /** Over WebSocket, the SETUP carrying {@code token} (null: none). */
  public static WireClient connectWebSocketWithToken(int port, String client, String token) {
    return new WireClient(connector(client, token)
        .connect(WebsocketClientTransport.create(URI.create("ws://127.0.0.1:" + port + "/rsocket")))
        .block(Duration.ofSeconds(5)));
  }

  /** Over TLS ({@code tls://}): RSocket over TCP through {@code tls}. */
  public static WireClient connectTls(int port, String client, SslContext tls) {
    return new WireClient(connector(client, null)
        .connect(TcpClientTransport.create(TcpClient.newConnection().host("127.0.0.1").port(port)
            .secure(spec -> spec.sslContext(tls))))
        .block(Duration.ofSeconds(5)));
  }

  /** Over WebSocket with TLS ({@code wss://127.0.0.1:port/rsocket}). */
  public static WireClient connectWss(int port, String client, SslContext tls) {
    return new WireClient(connector(client, null)
        .connect(WebsocketClientTransport.create(reactor.netty.http.client.HttpClient.create().host("127.0.0.1")
            .port(port).secure(spec -> spec.sslContext(tls)), "/rsocket"))
        .block(Duration.ofSeconds(5)));
  }

  private static RSocketConnector connector(String client, String token) {
    ByteBuf metadata = Unpooled.EMPTY_BUFFER;
    if (token != null) {
      CompositeByteBuf composite = ByteBufAllocator.DEFAULT.compositeBuffer();
      BearerMetadata.add(composite, ByteBufAllocator.DEFAULT, token);
      metadata = composite;
    }
    return RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(ByteBufPayload.create(Unpooled.copiedBuffer("{\"client\":\"" + client + "\"}",
            StandardCharsets.UTF_8), metadata));
  }

  public static WireClient connect(int port) {
    return connect(port, "test-client");
  }

  public static WireClient connect(int port, String client) {
    return connect(TcpClient.newConnection().host("127.0.0.1").port(port), client);
  }

  /** To a server at another address: only one the test made itself (see {@link NetworkNamespace}). */
  public static WireClient connectTo(String host, int port, String client) {
    return connect(TcpClient.newConnection().host(host).port(port), client);
  }

  /** From another loopback address ({@code 127.0.0.2}...), as a client on another machine would. */
  public static WireClient connectFrom(String localAddress, int port, String client) {
    return connect(TcpClient.newConnection().host("127.0.0.1").port(port)
        .bindAddress(() -> new InetSocketAddress(localAddress, 0)), client);
  }

  private static WireClient connect(TcpClient tcp, String client) {
    RSocket rsocket = RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(DefaultPayload.create("{\"client\":\"" + client + "\"}"))
        .connect(TcpClientTransport.create(tcp))
        .block(Duration.ofSeconds(5));
    return new WireClient(rsocket);
  }

  /** The same client over RSocket's WebSocket transport, on the server's WebSocket port. */
  public static WireClient connectWebSocket(int port, String client) {
    return connectWebSocketTo("127.0.0.1", port, client);
  }

  /** Over WebSocket to a server at another address: only one the test made itself. */
  public static WireClient connectWebSocketTo(String host, int port, String client) {
    RSocket rsocket = RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(DefaultPayload.create("{\"client\":\"" + client + "\"}"))
        .connect(WebsocketClientTransport.create(URI.create("ws://" + host + ":" + port + "/rsocket")))
        .block(Duration.ofSeconds(5));
    return new WireClient(rsocket);
  }

  public static Payload payload(String route, String json) {
    return payload(route, json, null);
  }

  /** A request: its route and, unless null, a bearer token, in composite metadata. */
  public static Payload payload(String route, String json, String token) {
    ByteBuf metadata = route == null ? Unpooled.EMPTY_BUFFER : RouteMetadata.encode(ByteBufAllocator.DEFAULT, route);
    if (token != null) {
      CompositeByteBuf composite = metadata instanceof CompositeByteBuf c ? c
          : ByteBufAllocator.DEFAULT.compositeBuffer().addComponent(true, metadata);
      BearerMetadata.add(composite, ByteBufAllocator.DEFAULT, token);
      metadata = composite;
    }
    return ByteBufPayload.create(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8), metadata);
  }

  public RSocket rsocket() {
    return rsocket;
  }

  public Mono<String> request(String route, String json) {
    return rsocket.requestResponse(payload(route, json, requestToken)).map(WireClient::text);
  }

  public String call(String route, String json) {
    return request(route, json).block(Duration.ofSeconds(5));
  }

  public <T> T call(String route, String json, Class<T> type) {
    return JsonCodec.json().decode(call(route, json), type);
  }

  public void fire(String route, String json) {
    rsocket.fireAndForget(payload(route, json, requestToken)).block(Duration.ofSeconds(5));
  }

  public Flux<String> stream(String route, String json) {
    return rsocket.requestStream(payload(route, json, requestToken)).map(WireClient::text);
  }

  /** The contract error a call failed with. */
  public ErrorBody error(String route, String json) {
    try {
      call(route, json);
    } catch (ApplicationErrorException e) {
      return JsonCodec.json().decode(e.getMessage(), ErrorBody.class);
    }
    throw new AssertionError("expected " + route + " to fail");
  }

  public static ErrorBody errorOf(Throwable error) {
    if (error instanceof ApplicationErrorException e) {
      return JsonCodec.json().decode(e.getMessage(), ErrorBody.class);
    }
    throw new AssertionError("not a contract error", error);
  }

  private static String text(Payload payload) {
    try {
      return payload.getDataUtf8();
    } finally {
      payload.release();
    }
  }

  public boolean isDisposed() {
    return rsocket.isDisposed();
  }

  @Override
  public void close() {
    rsocket.dispose();
    rsocket.onClose().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(5));
  }
}
