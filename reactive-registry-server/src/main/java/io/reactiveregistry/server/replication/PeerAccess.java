package io.reactiveregistry.server.replication;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import org.jspecify.annotations.Nullable;

/**
 * How a node reaches its peers' RSocket ports, from its own security settings: over TLS when its
 * own ports speak TLS (presenting its own certificate, which a peer requiring client certificates
 * checks; trusting the CA of {@code --tls-client-ca-file}, else the JVM's trust store), and with the
 * bearer token of {@code --peer-token-file} in the SETUP when given.
 *
 * @param tls the client-side TLS; null for plain TCP
 * @param token the bearer token; null for none
 */
public record PeerAccess(@Nullable SslContext tls, @Nullable String token) {
  public static final PeerAccess PLAIN = new PeerAccess(null, null);

  /** Reads the files the settings name; a file that cannot be read stops the start, naming it. */
  public static PeerAccess of(SecurityConfig security) {
    return new PeerAccess(tls(security.tls()), token(security));
  }

  private static @Nullable SslContext tls(@Nullable TlsFiles files) {
    if (files == null) {
      return null;
    }
    try {
      SslContextBuilder builder = SslContextBuilder.forClient()
          .keyManager(files.certificate().toFile(), files.key().toFile());
      if (files.clientCa() != null) {
        builder.trustManager(files.clientCa().toFile());
      }
      return builder.build();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("TLS to the cluster's peers cannot be set up from " + files.certificate()
          + " and " + files.key() + ": " + e.getMessage(), e);
    }
  }

  private static @Nullable String token(SecurityConfig security) {
    if (security.peerTokenFile() == null) {
      return null;
    }
    try {
      String token = Files.readString(security.peerTokenFile()).strip();
      if (token.isEmpty()) {
        throw new IllegalArgumentException("--peer-token-file " + security.peerTokenFile() + " is empty: it holds "
            + "the bearer token this node presents to its peers");
      }
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException("--peer-token-file " + security.peerTokenFile() + " cannot be read: "
          + e.getMessage(), e);
    }
  }
}
