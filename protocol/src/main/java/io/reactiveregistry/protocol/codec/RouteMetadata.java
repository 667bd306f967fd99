package io.reactiveregistry.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.reactiveregistry.protocol.Protocol;
import io.rsocket.metadata.CompositeMetadata;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.RoutingMetadata;
import io.rsocket.metadata.TaggingMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Reads and writes the route tag carried in composite metadata. */
public final class RouteMetadata {
  private RouteMetadata() {}

  /** Composite metadata holding one routing entry with the given route. */
  public static ByteBuf encode(ByteBufAllocator alloc, String route) {
    CompositeByteBuf composite = alloc.compositeBuffer();
    ByteBuf routing = TaggingMetadataCodec.createRoutingMetadata(alloc, List.of(route)).getContent();
    CompositeMetadataCodec.encodeAndAddMetadata(composite, alloc, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING, routing);
    return composite;
  }

  /**
   * Every route tag found in the composite metadata, in order.
   *
   * @throws MalformedBodyException when the metadata is not valid composite metadata
   */
  public static List<String> routes(@Nullable ByteBuf metadata) {
    List<String> routes = new ArrayList<>(1);
    if (metadata == null || !metadata.isReadable()) {
      return routes;
    }
    try {
      for (CompositeMetadata.Entry entry : new CompositeMetadata(metadata, false)) {
        if (Protocol.ROUTING_MIME_TYPE.equals(entry.getMimeType())) {
          for (String tag : new RoutingMetadata(entry.getContent())) {
            routes.add(tag);
          }
        }
      }
    } catch (RuntimeException e) {
      throw new MalformedBodyException(
          "metadata must be composite metadata (" + Protocol.METADATA_MIME_TYPE + ") with a routing entry");
    }
    return routes;
  }
}
