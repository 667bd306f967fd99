package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.rsocket.Payload;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;

/**
 * The payload of a pushed event: on an event loop, the event's bytes copied once into a direct
 * buffer that every subscriber the loop writes the event to shares. An event is encoded once for
 * all its subscribers, but each frame wrapped its heap bytes, and the native transport cannot
 * write heap memory: for every subscriber Netty merged the frame's header and the bytes into a new
 * heap array and copied that into a direct buffer (an allocation and two copies per push, and most
 * of a 10,000-subscriber fan-out's garbage, RESULTS.md). A change's frames to the subscribers on one
 * loop are written one after another, so the loop keeps the last event's direct copy: each frame
 * then writes the header and the shared bytes as they are.
 */
final class SharedEventPayloads {
  /** The last event this loop wrote, and its direct copy (one reference held here). */
  private static final class Last {
    byte[] event;
    ByteBuf direct;
  }

  private static final FastThreadLocal<Last> LAST = new FastThreadLocal<>() {
    @Override
    protected Last initialValue() {
      return new Last();
    }

    @Override
    protected void onRemoval(Last last) {
      if (last.direct != null) { // the loop's thread ends: its copy goes with it
        last.direct.release();
        last.direct = null;
        last.event = null;
      }
    }
  };

  private SharedEventPayloads() {}

  static Payload of(byte[] event) {
    if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
      return DefaultPayload.create(event); // not an event loop: no loop to keep a copy for
    }
    Last last = LAST.get();
    if (last.event != event) {
      ByteBuf direct = ByteBufAllocator.DEFAULT.directBuffer(event.length, event.length).writeBytes(event);
      if (last.direct != null) {
        last.direct.release(); // frames still waiting to be written hold their own references
      }
      last.event = event;
      last.direct = direct;
    }
    return ByteBufPayload.create(last.direct.retainedDuplicate());
  }
}
