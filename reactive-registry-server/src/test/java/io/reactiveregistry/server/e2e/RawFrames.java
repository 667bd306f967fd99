package io.reactiveregistry.server.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Protocol;
import io.rsocket.frame.FrameLengthCodec;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.util.DefaultPayload;

/** RSocket frames as bytes for a bare socket: for peers that misbehave in ways a client library will not. */
final class RawFrames {
  private RawFrames() {}

  /** The frame with its 3-byte length prefix, as TCP carries it; the frame is released. */
  static byte[] framed(ByteBuf frame) {
    ByteBuf withLength = FrameLengthCodec.encode(ByteBufAllocator.DEFAULT, frame.readableBytes(), frame);
    byte[] bytes = new byte[withLength.readableBytes()];
    withLength.readBytes(bytes);
    withLength.release();
    return bytes;
  }

  /** A SETUP with this contract's MIME types, the given keepalive, and {@code data} as setup data. */
  static byte[] setup(int keepAliveMs, int lifetimeMs, String data) {
    return framed(SetupFrameCodec.encode(ByteBufAllocator.DEFAULT, false, keepAliveMs, lifetimeMs,
        Unpooled.EMPTY_BUFFER, Protocol.METADATA_MIME_TYPE, Protocol.DATA_MIME_TYPE, DefaultPayload.create(data)));
  }
}
