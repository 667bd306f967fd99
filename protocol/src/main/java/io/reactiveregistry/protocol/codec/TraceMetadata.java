package io.reactiveregistry.protocol.codec;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.rsocket.metadata.CompositeMetadataCodec;

/**
 * A caller's W3C trace context in composite metadata: an entry of {@link Protocol#TRACE_MIME_TYPE}
 * whose content is the {@code traceparent} value in US-ASCII. Read by {@link RequestMetadata}.
 */
public final class TraceMetadata {
  private TraceMetadata() {}

  /** Adds an entry carrying {@code trace} to {@code composite}. */
  public static void add(CompositeByteBuf composite, ByteBufAllocator alloc, TraceParent trace) {
    CompositeMetadataCodec.encodeAndAddMetadata(composite, alloc, Protocol.TRACE_MIME_TYPE,
        ByteBufUtil.writeAscii(alloc, trace.header()));
  }
}
