package io.reactiveregistry.server.replication;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.SetupData;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.netty.tcp.TcpClient;

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

  /**
   * Connects to a peer's RSocket port as this node: over TLS and with the token when set.
   * {@code who}: the client name its SETUP gives (it shows in the peer's connections).
   */
  public Mono<RSocket> connect(String host, int port, String who, String version, Duration keepAlive,
      Duration keepAliveLifetime) {
    String setup = JsonCodec.json().encodeToString(new SetupData(who, version));
    TcpClient tcp = TcpClient.create().host(host).port(port);
    return RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .keepAlive(keepAlive, keepAliveLifetime)
        .setupPayload(token == null ? DefaultPayload.create(setup)
            : ByteBufPayload.create(Unpooled.copiedBuffer(setup, StandardCharsets.UTF_8),
                BearerMetadata.composite(ByteBufAllocator.DEFAULT, token)))
        .connect(TcpClientTransport.create(tls == null ? tcp : tcp.secure(spec -> spec.sslContext(tls))));
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
