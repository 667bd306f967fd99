package io.reactiveregistry.protocol.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.rsocket.metadata.AuthMetadataCodec;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import org.jspecify.annotations.Nullable;

/**
 * A bearer token in composite metadata, in the {@code message/x.rsocket.authentication.v0}
 * extension: in a SETUP it authenticates the connection, in a request that request only. The same
 * encoding Spring Security's {@code BearerTokenMetadata} and the rsc CLI's {@code --authBearer} use.
 */
public final class BearerMetadata {
  /** The extension's MIME type. */
  public static final String MIME_TYPE = WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION.getString();

  private BearerMetadata() {}

  /** Adds a bearer entry holding {@code token} to {@code composite}. */
  public static void add(CompositeByteBuf composite, ByteBufAllocator alloc, String token) {
    ByteBuf bearer = AuthMetadataCodec.encodeBearerMetadata(alloc, token.toCharArray());
    CompositeMetadataCodec.encodeAndAddMetadata(composite, alloc, WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION,
        bearer);
  }

  /** Composite metadata holding only a bearer entry: a SETUP's metadata. */
  public static ByteBuf composite(ByteBufAllocator alloc, String token) {
    CompositeByteBuf composite = alloc.compositeBuffer();
    add(composite, alloc, token);
    return composite;
  }

  /**
   * The bearer token in the composite metadata, or null when it holds none.
   *
   * @throws MalformedBodyException when the metadata is not composite metadata, or its
   *     authentication entry is not a bearer token
   */
  public static @Nullable String read(@Nullable ByteBuf metadata) {
    return RequestMetadata.read(metadata).bearer();
  }
}
