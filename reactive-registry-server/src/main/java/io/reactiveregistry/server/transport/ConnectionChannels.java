package io.reactiveregistry.server.transport;

import io.netty.channel.Channel;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The channel of each open connection, by remote address: RSocket-Java hands the acceptor a
 * connection without its channel, and a subscription needs the channel to see how much waits to
 * be written to its peer (see {@link ChannelDrainLoop}).
 */
final class ConnectionChannels {
  private final ConcurrentHashMap<SocketAddress, Channel> byPeer = new ConcurrentHashMap<>();

  /** Tracks an accepted connection's channel until it closes. */
  void add(Channel channel) {
    SocketAddress peer = channel.remoteAddress();
    if (peer == null) {
      return;
    }
    byPeer.put(peer, channel);
    channel.closeFuture().addListener(closed -> byPeer.remove(peer, channel));
  }

  /** The open connection from {@code peer}; null when unknown (or already closed). */
  @Nullable Channel of(@Nullable SocketAddress peer) {
    return peer == null ? null : byPeer.get(peer);
  }
}
