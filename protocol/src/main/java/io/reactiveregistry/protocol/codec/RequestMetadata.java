package io.reactiveregistry.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.rsocket.metadata.AuthMetadataCodec;
import io.rsocket.metadata.CompositeMetadata;
import io.rsocket.metadata.RoutingMetadata;
import io.rsocket.metadata.WellKnownAuthType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a request's composite metadata says, read in one pass: its route tags, the bearer token
 * of its {@code message/x.rsocket.authentication.v0} entry, if any, and the caller's trace context
 * from its {@link Protocol#TRACE_MIME_TYPE} entry, if any and valid (an invalid one is ignored, as
 * W3C asks of receivers).
 */
public record RequestMetadata(List<String> routes, @Nullable String bearer, @Nullable TraceParent trace) {

  /**
   * Reads composite metadata; null or empty metadata has no route and no token.
   *
   * @throws MalformedBodyException when it is not composite metadata, or its authentication entry
   *     is not a bearer token
   */
  public static RequestMetadata read(@Nullable ByteBuf metadata) {
    List<String> routes = new ArrayList<>(1);
    String bearer = null;
    TraceParent trace = null;
    if (metadata == null || !metadata.isReadable()) {
      return new RequestMetadata(routes, null, null);
    }
    try {
      for (CompositeMetadata.Entry entry : new CompositeMetadata(metadata, false)) {
        String mimeType = entry.getMimeType();
        if (Protocol.ROUTING_MIME_TYPE.equals(mimeType)) {
          for (String tag : new RoutingMetadata(entry.getContent())) {
            routes.add(tag);
          }
        } else if (BearerMetadata.MIME_TYPE.equals(mimeType)) {
          ByteBuf content = entry.getContent();
          if (!AuthMetadataCodec.isWellKnownAuthType(content)
              || AuthMetadataCodec.readWellKnownAuthType(content) != WellKnownAuthType.BEARER) {
            throw new MalformedBodyException("the " + BearerMetadata.MIME_TYPE + " entry must hold a bearer token");
          }
          bearer = new String(AuthMetadataCodec.readBearerTokenAsCharArray(content));
        } else if (Protocol.TRACE_MIME_TYPE.equals(mimeType)) {
          trace = TraceParent.parse(entry.getContent().toString(StandardCharsets.US_ASCII)).orElse(null);
        }
      }
    } catch (MalformedBodyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new MalformedBodyException(
          "metadata must be composite metadata (" + Protocol.METADATA_MIME_TYPE + ") with a routing entry");
    }
    return new RequestMetadata(routes, bearer, trace);
  }
}
