package io.reactiveregistry.server.transport;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose peer does not read what it asked for. Answers, keepalive replies and
 * subscription events wait in the connection's outbound buffer while the peer is slow; the channel
 * stops being writable when that buffer passes its high-water mark (set to the configured
 * backlog limit). A peer that floods requests or keepalives without reading therefore costs the
 * server at most that much memory before it is disconnected — and its instances released.
 */
@ChannelHandler.Sharable
final class OutboundBacklogGuard extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(OutboundBacklogGuard.class);

  private final long limitBytes;

  OutboundBacklogGuard(long limitBytes) {
    this.limitBytes = limitBytes;
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (!ctx.channel().isWritable()) {
      log.warn("closing {}: more than {} bytes wait to be sent and the peer is not reading them",
          ctx.channel().remoteAddress(), limitBytes);
      ctx.close();
    }
    super.channelWritabilityChanged(ctx);
  }
}
