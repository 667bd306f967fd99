package io.reactiveregistry.server.eureka;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
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
 * every change. A large gzipped document that is kept for every caller (the full fetch, the
 * delta: see {@link Renderings}) is also copied into direct memory once, when it is first sent,
 * and every later caller is sent that copy: a socket is written from direct memory, and copying a
 * full fetch's half megabyte there for each caller was an eighth of the server's CPU per fetch.
 * The copy is pooled memory, given back when the document is replaced ({@link #release}) and the
 * sends under way are done with it: left to the garbage collector, a registry changing many times
 * a second could exhaust the direct memory between collections, and the JDK then waits for one on
 * the thread that asked, an event loop.
 */
final class Rendered {
  /** Smaller than this, gzip's header and the CPU cost more than they save. */
  private static final int GZIP_FROM_BYTES = 1024;
  /** From this size a gzipped document is kept in direct memory for sending (the full fetch, the delta). */
  private static final int DIRECT_FROM_BYTES = 64 * 1024;

  private final byte @Nullable [] gzipped;
  /**
   * Guards the copy in direct memory, apart from the plain bytes' lock: an event loop sending the
   * gzipped bytes never waits while a renderer puts megabytes of plain bytes together.
   */
  private final Object directLock = new Object();
  /** Whether the gzipped bytes are sent from a copy in direct memory; guarded by {@link #directLock}. */
  private boolean sentFromDirectMemory;
  /** That copy, once made (one reference held here, one more by each send under way); guarded by {@link #directLock}. */
  private @Nullable ByteBuf gzippedDirect;
  private final String contentType;
  private @Nullable Supplier<byte[]> source;
  /** Written under this object's lock, read without it by {@link #hasPlain}. */
  private volatile byte @Nullable [] plain;

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

  /** Whether the plain bytes are put together already (asking for them costs no copying, and no wait). */
  boolean hasPlain() {
    return plain != null;
  }

  /** The plain bytes, put together the first time they are asked for when they were not yet. */
  synchronized byte[] plain() {
    byte[] made = plain;
    if (made == null) {
      made = Objects.requireNonNull(source).get();
      plain = made;
      source = null;
    }
    return made;
  }

  /** Whether {@link #content} sends gzipped bytes to a caller that does or does not take gzip. */
  boolean sendsGzipped(boolean callerTakesGzip) {
    return callerTakesGzip && gzipped != null;
  }

  /**
   * The bytes to send, gzipped when the caller takes gzip and the document was large enough: a
   * buffer of its own for one response, which Netty releases once written.
   */
  ByteBuf content(boolean callerTakesGzip) {
    if (!sendsGzipped(callerTakesGzip)) {
      return Unpooled.wrappedBuffer(plain());
    }
    byte[] zipped = Objects.requireNonNull(gzipped);
    if (zipped.length >= DIRECT_FROM_BYTES) {
      synchronized (directLock) {
        if (sentFromDirectMemory) {
          if (gzippedDirect == null) {
            gzippedDirect = ByteBufAllocator.DEFAULT.directBuffer(zipped.length).writeBytes(zipped);
          }
          return gzippedDirect.retainedDuplicate();
        }
      }
    }
    return Unpooled.wrappedBuffer(zipped);
  }

  /** From now on, until {@link #release}, the gzipped bytes are sent from one copy in direct memory. */
  void sendFromDirectMemory() {
    synchronized (directLock) {
      sentFromDirectMemory = true;
    }
  }

  /**
   * The document is no longer kept: its copy in direct memory goes back to the pool once the sends
   * under way are done with it, and any later send of it is from the heap.
   */
  void release() {
    synchronized (directLock) {
      sentFromDirectMemory = false;
      if (gzippedDirect != null) {
        gzippedDirect.release();
        gzippedDirect = null;
      }
    }
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
