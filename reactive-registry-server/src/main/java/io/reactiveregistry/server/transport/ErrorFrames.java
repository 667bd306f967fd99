package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundInvoker;
import io.rsocket.RSocketErrorException;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameLengthCodec;

/** A connection-level RSocket ERROR frame written straight to a TCP channel, then the close. */
final class ErrorFrames {
  private ErrorFrames() {}

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
