package io.reactiveregistry.client;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * How a client speaks TLS to a server ({@code tls://host:port}): the CA certificates it trusts (null:
 * the JVM's default trust store), and for mutual TLS its own certificate and key. The server's
 * certificate must name the host or IP address the client connects to.
 *
 * @param trustedCertificates PEM CA certificate(s) that signed the server's certificate
 * @param certificate PEM certificate chain to present, for a server that asks for one; null for none
 * @param key PKCS#8 PEM key of {@code certificate}
 */
public record ClientTls(@Nullable Path trustedCertificates, @Nullable Path certificate, @Nullable Path key) {
  public ClientTls {
    if ((certificate == null) != (key == null)) {
      throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
    }
  }

  /** Trusting these CA certificates (null: the JVM's default trust store), with no client certificate. */
  public static ClientTls trusting(@Nullable Path trustedCertificates) {
    return new ClientTls(trustedCertificates, null, null);
  }

  /** The Netty context; files that cannot be read or used are refused naming them. */
  public SslContext sslContext() {
    try {
      SslContextBuilder builder = SslContextBuilder.forClient();
      if (trustedCertificates != null) {
        builder.trustManager(trustedCertificates.toFile());
      }
      if (certificate != null) {
        builder.keyManager(certificate.toFile(), key.toFile());
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("TLS files " + (trustedCertificates == null ? "" : trustedCertificates + " ")
          + (certificate == null ? "" : certificate + " " + key + " ") + "cannot be used: " + e.getMessage(), e);
    }
  }
}
