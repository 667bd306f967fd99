package io.reactiveregistry.loadtest.engine;

import io.netty.handler.ssl.SslContext;
import io.reactiveregistry.client.ClientTls;
import io.reactiveregistry.client.ClientTransports;
import io.rsocket.transport.ClientTransport;
import java.net.URI;

/**
 * The server under load: {@code tcp://127.0.0.1:7070}, and the bearer token each virtual user
 * presents in its SETUP (null for none). Only loopback targets are accepted.
 */
public record Target(String host, int port, String token, SslContext tls) {

  public Target(String host, int port) {
    this(host, port, null, null);
  }

  /** {@code tcp://host:port}, or {@code tls://host:port} (then TLS trusting the JVM's CAs until {@link #withTls}). */
  public static Target parse(String uri) {
    URI parsed = URI.create(uri);
    boolean secure = "tls".equals(parsed.getScheme());
    if (!(secure || "tcp".equals(parsed.getScheme())) || parsed.getHost() == null || parsed.getPort() < 1) {
      throw new IllegalArgumentException("target must look like tcp://127.0.0.1:7070 or tls://127.0.0.1:7070, got "
          + uri);
    }
    return new Target(parsed.getHost(), parsed.getPort(), null, secure ? ClientTls.trusting(null).sslContext() : null);
  }

  /** The same server, each connection presenting {@code value} (null or empty: none). */
  public Target withToken(String value) {
    return new Target(host, port, value == null || value.isEmpty() ? null : value, tls);
  }

  /** The same TLS server, trusting the CA certificates of {@code caFile}; no change for a tcp:// target. */
  public Target withTrustedCertificates(java.nio.file.Path caFile) {
    return tls == null || caFile == null ? this : new Target(host, port, token, ClientTls.trusting(caFile).sslContext());
  }

  /** The RSocket transport to this server. */
  public ClientTransport transport() {
    return tls == null ? ClientTransports.tcp(host, port) : ClientTransports.tls(host, port, tls);
  }

  @Override
  public String toString() { // never the token
    return (tls == null ? "tcp://" : "tls://") + host + ":" + port;
  }
}
