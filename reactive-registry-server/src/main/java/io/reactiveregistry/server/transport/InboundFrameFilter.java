package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.frame.FrameType;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frames on a TCP connection, between the frame decoder and RSocket-Java, for the cases RSocket-Java
 * gets wrong: a frame of a type it does not know with the IGNORE flag must be ignored (the RSocket
 * specification), where RSocket-Java stops reading the connection; a frame only a server may send
 * (LEASE) makes it fail inside (a {@code NullPointerException}); and a frame longer than the
 * decoder accepts is skipped by the decoder, which leaves the connection open with the request in
 * it never answered. Such a frame is dropped, or answered with a {@code CONNECTION_ERROR} that
 * says why, and that connection alone is closed (releasing what it owned).
 */
@ChannelHandler.Sharable
final class InboundFrameFilter extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(InboundFrameFilter.class);
  /** The length prefix the frame decoder leaves in front of each frame. */
  private static final int LENGTH_PREFIX = 3;
  private static final int TYPE_SHIFT = 10;
  private static final int FLAG_IGNORE = 0b10_0000_0000;
  private static final Set<FrameType> SERVER_ONLY = Set.of(FrameType.LEASE);

  private final int frameLimitBytes;

  InboundFrameFilter(int frameLimitBytes) {
    this.frameLimitBytes = frameLimitBytes;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof ByteBuf frame && frame.readableBytes() >= LENGTH_PREFIX + 6) {
      int typeAndFlags = frame.getUnsignedShort(frame.readerIndex() + LENGTH_PREFIX + 4);
      int encodedType = typeAndFlags >>> TYPE_SHIFT;
      FrameType type = known(encodedType);
      if (type == null) {
        if ((typeAndFlags & FLAG_IGNORE) != 0) {
          frame.release(); // an extension this server does not know, marked as safe to ignore
          return;
        }
        refuse(ctx, frame, "frame type " + encodedType + " is not known to this server and not marked IGNORE");
        return;
      }
      if (SERVER_ONLY.contains(type)) {
        refuse(ctx, frame, type + " frames are sent by servers, not accepted from clients");
        return;
      }
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (cause instanceof TooLongFrameException) {
      refuse(ctx, null, "a frame longer than " + frameLimitBytes + " bytes (" + cause.getMessage() + ")");
      return;
    }
    super.exceptionCaught(ctx, cause);
  }

  private static FrameType known(int encodedType) {
    try {
      return FrameType.fromEncodedType(encodedType);
    } catch (IllegalArgumentException unknown) {
      return null;
    }
  }

  private static void refuse(ChannelHandlerContext ctx, ByteBuf frame, String reason) {
    if (frame != null) {
      frame.release();
    }
    log.warn("closing {}: {}", ctx.channel().remoteAddress(), reason);
    ErrorFrames.sendAndClose(ctx, ctx.alloc(), new ConnectionErrorException(reason));
  }
}
