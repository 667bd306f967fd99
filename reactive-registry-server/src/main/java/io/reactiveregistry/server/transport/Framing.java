package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.rsocket.frame.FrameLengthCodec;

/** How RSocket frames travel on a connection: length-prefixed on TCP, one per binary message on WebSocket. */
enum Framing {
  TCP {
    private static final int LENGTH_PREFIX = 3;

    @Override
    ByteBuf frameOf(Object message) {
      return message instanceof ByteBuf bytes && bytes.readableBytes() >= LENGTH_PREFIX
          ? bytes.slice(bytes.readerIndex() + LENGTH_PREFIX, bytes.readableBytes() - LENGTH_PREFIX)
          : null;
    }

    @Override
    Object wrap(ByteBufAllocator alloc, ByteBuf frame) {
      return FrameLengthCodec.encode(alloc, frame.readableBytes(), frame);
    }
  },
  WEBSOCKET {
    @Override
    ByteBuf frameOf(Object message) {
      return message instanceof BinaryWebSocketFrame binary ? binary.content() : null;
    }

    @Override
    Object wrap(ByteBufAllocator alloc, ByteBuf frame) {
      return new BinaryWebSocketFrame(frame);
    }
  };

  /** The RSocket frame inside a message read from the channel (a view: not retained), or null if none. */
  abstract ByteBuf frameOf(Object message);

  /** A frame as this transport carries it, to write to the channel or pass on to RSocket. */
  abstract Object wrap(ByteBufAllocator alloc, ByteBuf frame);
}
