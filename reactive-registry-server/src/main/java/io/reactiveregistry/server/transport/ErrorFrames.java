package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundInvoker;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.rsocket.RSocketErrorException;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameLengthCodec;
import java.util.concurrent.TimeUnit;

/** A connection-level RSocket ERROR frame written straight to a TCP channel, then the close. */
final class ErrorFrames {
  /** How long a refused peer has to read why before its connection is closed outright. */
  private static final long REFUSAL_LINGER_MS = 1_000;

  private ErrorFrames() {}

  /**
   * Refuses a connection that RSocket has not seen yet: whatever the peer sends is discarded, the
   * error goes out followed by the end of the stream (FIN), and the channel is closed when the
   * peer closes its side or after a second. Closing at once while the peer's SETUP sits unread
   * would reset the connection, and the peer might never read why.
   */
  static void refuse(Channel channel, RSocketErrorException error) {
    channel.pipeline().addFirst("refused", new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
      }
    });
    ByteBuf frame = ErrorFrameCodec.encode(channel.alloc(), 0, error);
    channel.writeAndFlush(FrameLengthCodec.encode(channel.alloc(), frame.readableBytes(), frame))
        .addListener(written -> {
          if (channel instanceof SocketChannel socket) {
            socket.shutdownOutput();
          }
          channel.eventLoop().schedule(() -> channel.close(), REFUSAL_LINGER_MS, TimeUnit.MILLISECONDS);
        });
  }

  /**
   * Writes {@code error} as an ERROR frame on stream 0, length-prefixed as TCP carries frames, and
   * closes the channel once it is out, so the peer always reads why before the close.
   */
  static void sendAndClose(ChannelOutboundInvoker channel, ByteBufAllocator alloc, RSocketErrorException error) {
    ByteBuf frame = ErrorFrameCodec.encode(alloc, 0, error);
    channel.writeAndFlush(FrameLengthCodec.encode(alloc, frame.readableBytes(), frame))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
