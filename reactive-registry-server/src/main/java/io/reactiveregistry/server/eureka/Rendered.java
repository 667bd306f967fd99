package io.reactiveregistry.server.eureka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * A document as it is sent, and gzipped once when it is large enough to gain from it: Eureka's
 * clients ask for gzip, and a full fetch of thousands of instances shrinks tenfold.
 */
record Rendered(byte[] plain, byte @Nullable [] gzipped, String contentType) {
  /** Smaller than this, gzip's header and the CPU cost more than they save. */
  private static final int GZIP_FROM_BYTES = 1024;

  static Rendered of(byte[] plain, String contentType) {
    return new Rendered(plain, plain.length >= GZIP_FROM_BYTES ? gzip(plain) : null, contentType);
  }

  /** A document gzipped already (see {@link SplicedGzip}): sent so when it is large enough. */
  static Rendered of(byte[] plain, byte[] gzipped, String contentType) {
    return new Rendered(plain, plain.length >= GZIP_FROM_BYTES ? gzipped : null, contentType);
  }

  private static byte[] gzip(byte[] plain) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 4 + 64);
    // The fastest level: a full fetch of ten thousand instances is re-compressed after every change,
    // and Eureka's documents, which repeat their field names, shrink well even so.
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
