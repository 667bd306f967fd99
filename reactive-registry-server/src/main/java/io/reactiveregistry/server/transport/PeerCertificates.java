package io.reactiveregistry.server.transport;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import io.reactiveregistry.server.tls.ClientCertificates;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The common name of each TLS connection's client certificate, by remote address, from the end of
 * its handshake until it closes: the SETUP that follows reads it (an RSocket acceptor sees the
 * remote address, not the channel).
 */
final class PeerCertificates {
  private final Map<SocketAddress, String> commonNames = new ConcurrentHashMap<>();

  /** Watches a channel's TLS handshake, if it has one. */
  void watch(Channel channel, @Nullable SslHandler tls) {
    if (tls == null) {
      return;
    }
    SocketAddress remote = channel.remoteAddress();
    tls.handshakeFuture().addListener(handshake -> {
      if (handshake.isSuccess()) {
        String name = ClientCertificates.commonName(tls);
        if (name != null) {
          commonNames.put(remote, name);
          channel.closeFuture().addListener(closed -> commonNames.remove(remote));
        }
      }
    });
  }

  /** The common name of the certificate the connection from {@code remote} presented; null for none. */
  @Nullable String commonName(@Nullable SocketAddress remote) {
    return remote == null ? null : commonNames.get(remote);
  }
}
