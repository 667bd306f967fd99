package io.reactiveregistry.server.transport;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a TCP connection that sent a frame longer than the server accepts. The frame decoder
 * refuses such a frame and skips its bytes, but on its own leaves the connection open: the
 * request inside is then never answered and the peer waits for nothing. A peer that sends what
 * the server will not buffer is told the only way left: the connection closes, and what it owned
 * is released.
 */
@ChannelHandler.Sharable
final class OversizedFrameGuard extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(OversizedFrameGuard.class);

  private final int limitBytes;

  OversizedFrameGuard(int limitBytes) {
    this.limitBytes = limitBytes;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (cause instanceof TooLongFrameException) {
      log.warn("closing {}: it sent a frame longer than {} bytes ({})", ctx.channel().remoteAddress(), limitBytes,
          cause.getMessage());
      ctx.close();
      return;
    }
    super.exceptionCaught(ctx, cause);
  }
}
