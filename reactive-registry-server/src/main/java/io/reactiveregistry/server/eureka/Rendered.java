package io.reactiveregistry.server.eureka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * A document as it is sent, and gzipped once when it is large enough to gain from it: Eureka's
 * clients ask for gzip, and a full fetch of thousands of instances shrinks tenfold. A document
 * gzipped already may put its plain bytes together only when a caller asks for them: Eureka's
 * clients all ask for gzip, and the whole registry's plain bytes are megabytes to copy after
 * every change.
 */
final class Rendered {
  /** Smaller than this, gzip's header and the CPU cost more than they save. */
  private static final int GZIP_FROM_BYTES = 1024;

  private final byte @Nullable [] gzipped;
  private final String contentType;
  private @Nullable Supplier<byte[]> source;
  private byte @Nullable [] plain;

  private Rendered(byte @Nullable [] plain, @Nullable Supplier<byte[]> source, byte @Nullable [] gzipped,
      String contentType) {
    this.plain = plain;
    this.source = source;
    this.gzipped = gzipped;
    this.contentType = contentType;
  }

  static Rendered of(byte[] plain, String contentType) {
    return new Rendered(plain, null, plain.length >= GZIP_FROM_BYTES ? gzip(plain) : null, contentType);
  }

  /**
   * A document gzipped already (see {@link SplicedGzip}), its plain bytes ({@code length} of
   * them) put together by {@code plain} the first time they are asked for; sent gzipped when it is
   * large enough.
   */
  static Rendered of(int length, Supplier<byte[]> plain, byte[] gzipped, String contentType) {
    return length >= GZIP_FROM_BYTES ? new Rendered(null, plain, gzipped, contentType)
        : new Rendered(plain.get(), null, null, contentType);
  }

  /** The plain bytes, put together the first time they are asked for when they were not yet. */
  synchronized byte[] plain() {
    if (plain == null) {
      plain = Objects.requireNonNull(source).get();
      source = null;
    }
    return plain;
  }

  byte @Nullable [] gzipped() {
    return gzipped;
  }

  String contentType() {
    return contentType;
  }

  private static byte[] gzip(byte[] plain) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 4 + 64);
    // The fastest level: a delta of thousands of changes is compressed again after every change
    // (the full fetch is spliced, SplicedGzip, at the same level), and Eureka's documents, which
    // repeat their field names, shrink well even so.
    try (GZIPOutputStream zip = new GZIPOutputStream(out, 8192) {
      {
        def.setLevel(Deflater.BEST_SPEED);
      }
    }) {
      zip.write(plain);
    } catch (IOException e) {
      throw new UncheckedIOException("gzip to memory failed", e);
    }
    return out.toByteArray();
  }
}
