package io.reactiveregistry.client;

import io.netty.handler.ssl.SslContext;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.netty.http.client.HttpClient;
import reactor.netty.tcp.TcpClient;

/** Client transports for the registry's RSocket endpoints. */
public final class ClientTransports {
  /** The schemes {@link #of} understands. */
  public static final List<String> SCHEMES = List.of("tcp", "tls", "ws", "wss");

  /** The server's WebSocket endpoint, where a {@code ws://} address names no path. */
  public static final String DEFAULT_WEBSOCKET_PATH = "/rsocket";

  private ClientTransports() {}

  /**
   * RSocket over TCP on a dedicated connection. {@code TcpClientTransport.create(host, port)}
   * would draw from Reactor Netty's shared connection pool, which holds at most 500 connections:
   * the 501st connection of a process would wait for another to close.
   */
  public static ClientTransport tcp(String host, int port) {
    return TcpClientTransport.create(TcpClient.newConnection().host(host).port(port));
  }

  /** RSocket over TCP with TLS ({@code tls://}), on a dedicated connection. */
  public static ClientTransport tls(String host, int port, ClientTls tls) {
    return tls(host, port, tls.sslContext());
  }

  /** RSocket over TCP with TLS from a context made once ({@link ClientTls#sslContext()}) for many connections. */
  public static ClientTransport tls(String host, int port, SslContext context) {
    return TcpClientTransport.create(TcpClient.newConnection().host(host).port(port)
        .secure(spec -> spec.sslContext(context)));
  }

  /**
   * RSocket over WebSocket ({@code ws://host:port/path}), on a dedicated connection; with
   * {@code tls} not null, over TLS ({@code wss://}).
   */
  public static ClientTransport webSocket(String host, int port, String path, @Nullable SslContext tls) {
    HttpClient http = HttpClient.newConnection().host(host).port(port);
    return WebsocketClientTransport.create(tls == null ? http : http.secure(spec -> spec.sslContext(tls)), path);
  }

  /**
   * The transport for a server address: {@code tcp://host:port}; {@code tls://host:port} with
   * {@code tls} (null: trust the JVM's default CAs); {@code ws://host:port/path} or
   * {@code wss://host:port/path} for the WebSocket endpoint (the path defaults to the server's
   * {@value #DEFAULT_WEBSOCKET_PATH}).
   *
   * @throws IllegalArgumentException for any other scheme: an address is never dialled over a
   *     transport it did not name
   */
  public static ClientTransport of(URI server, @Nullable ClientTls tls) {
    ClientTls trust = tls == null ? ClientTls.trusting(null) : tls;
    String path = server.getPath() == null || server.getPath().isEmpty() ? DEFAULT_WEBSOCKET_PATH : server.getPath();
    return switch (String.valueOf(server.getScheme())) {
      case "tcp" -> tcp(server.getHost(), server.getPort());
      case "tls" -> tls(server.getHost(), server.getPort(), trust);
      case "ws" -> webSocket(server.getHost(), server.getPort(), path, null);
      case "wss" -> webSocket(server.getHost(), server.getPort(), path, trust.sslContext());
      default -> throw new IllegalArgumentException("unknown scheme in " + server + ": use one of " + SCHEMES);
    };
  }
}
