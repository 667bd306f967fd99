package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a TCP connection may cost before it has set up: its first frame (the SETUP) may announce
 * at most {@code maxSetupBytes}, and it must arrive whole within {@code timeout}. Without it the
 * frame decoder would buffer up to the full frame limit for every connection that merely
 * announces a large first frame, which hundreds of connections can turn into an out-of-memory.
 * Sits first in the pipeline, reads only the first frame's length prefix, and steps aside once
 * that frame has arrived.
 */
final class SetupGuard extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(SetupGuard.class);
  private static final int LENGTH_PREFIX = 3;

  private final int maxSetupBytes;
  private final Duration timeout;
  private final byte[] prefix = new byte[LENGTH_PREFIX];
  private int prefixRead;
  /** The first frame's size, prefix included; -1 until its length is known. */
  private long firstFrame = -1;
  private long seen;
  private ScheduledFuture<?> deadline;

  SetupGuard(int maxSetupBytes, Duration timeout) {
    this.maxSetupBytes = maxSetupBytes;
    this.timeout = timeout;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    deadline = ctx.executor().schedule(() -> {
      log.warn("closing {}: no SETUP within {} ms", ctx.channel().remoteAddress(), timeout.toMillis());
      ctx.close();
    }, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (deadline != null) {
      deadline.cancel(false);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof ByteBuf bytes) {
      int index = bytes.readerIndex();
      while (prefixRead < LENGTH_PREFIX && index < bytes.writerIndex()) {
        prefix[prefixRead++] = bytes.getByte(index++);
      }
      seen += bytes.readableBytes();
      if (firstFrame < 0 && prefixRead == LENGTH_PREFIX) {
        int length = ((prefix[0] & 0xFF) << 16) | ((prefix[1] & 0xFF) << 8) | (prefix[2] & 0xFF);
        if (length > maxSetupBytes) {
          bytes.release();
          log.warn("closing {}: its first frame announces {} bytes; a SETUP may have at most {}",
              ctx.channel().remoteAddress(), length, maxSetupBytes);
          ctx.close();
          return;
        }
        firstFrame = LENGTH_PREFIX + (long) length;
      }
      if (firstFrame >= 0 && seen >= firstFrame) {
        ctx.pipeline().remove(this); // the SETUP is in: from here on the frame limit applies
      }
    }
    super.channelRead(ctx, msg);
  }
}
