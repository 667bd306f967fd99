package io.reactiveregistry.client;

import io.netty.handler.ssl.SslContext;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import reactor.netty.tcp.TcpClient;

/** Client transports for the registry's RSocket endpoints. */
public final class ClientTransports {
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
   * The transport for a server address: {@code tcp://host:port}, or {@code tls://host:port} with
   * {@code tls} (null: trust the JVM's default CAs).
   */
  public static ClientTransport of(URI server, @Nullable ClientTls tls) {
    return "tls".equals(server.getScheme())
        ? tls(server.getHost(), server.getPort(), tls == null ? ClientTls.trusting(null) : tls)
        : tcp(server.getHost(), server.getPort());
  }
}
