package io.reactiveregistry.server.eureka;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * One gzip member (RFC 1952) written piece by piece, in which pieces compressed earlier are
 * spliced as they are. A deflate stream may be cut at a full flush: the compressor's output is
 * then byte-aligned and what follows refers to nothing before it. A piece compressed alone and
 * ended by a full flush ({@link #compress}) is therefore valid anywhere in a stream whose output
 * also stands at a full flush, and the whole-registry document, after a change, is compressed
 * again only where it changed: the changed service's instances and the text between services.
 * The checksum covers the plain bytes (CRC-32 is cheap next to compression); the level is
 * {@link Deflater#BEST_SPEED} everywhere, as for every other document.
 */
final class SplicedGzip {
  /** ID1 ID2, deflate, no flags, no mtime, no extra flags, OS unknown. */
  private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

  private final ByteArrayOutputStream out;
  private final Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
  private final CRC32 crc = new CRC32();
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream(256);
  private final byte[] buffer = new byte[16 * 1024];
  private long size;

  SplicedGzip(int expectedBytes) {
    out = new ByteArrayOutputStream(Math.max(64, expectedBytes));
    out.writeBytes(HEADER);
  }

  /** Plain bytes, compressed here (with the text around them, at the next splice or the end). */
  void add(byte[] plain) {
    pending.writeBytes(plain);
  }

  void add(String text) {
    add(text.getBytes(StandardCharsets.UTF_8));
  }

  /** A piece {@link #compress}ed earlier from {@code plain}, spliced as it is. */
  void splice(byte[] plain, byte[] compressed) {
    flushPending();
    crc.update(plain);
    size += plain.length;
    out.writeBytes(compressed);
  }

  /** The member: what is pending, the last block, the checksum and the length. */
  byte[] finish() {
    try {
      byte[] last = pending.toByteArray();
      crc.update(last);
      size += last.length;
      deflater.setInput(last);
      deflater.finish();
      while (!deflater.finished()) {
        out.write(buffer, 0, deflater.deflate(buffer));
      }
    } finally {
      deflater.end();
    }
    writeIntLittleEndian((int) crc.getValue());
    writeIntLittleEndian((int) size); // ISIZE: the length modulo 2^32
    return out.toByteArray();
  }

  /** {@code plain} deflated alone, ending at a full flush: a piece to {@link #splice}. */
  static byte[] compress(byte[] plain) {
    Deflater alone = new Deflater(Deflater.BEST_SPEED, true);
    try {
      ByteArrayOutputStream compressed = new ByteArrayOutputStream(plain.length / 4 + 64);
      deflateFlushed(alone, plain, compressed, new byte[16 * 1024]);
      return compressed.toByteArray();
    } finally {
      alone.end();
    }
  }

  private void flushPending() {
    if (pending.size() == 0) {
      return;
    }
    byte[] text = pending.toByteArray();
    pending.reset();
    crc.update(text);
    size += text.length;
    deflateFlushed(deflater, text, out, buffer);
  }

  /** Deflates all of {@code plain}, ending with a full flush (zlib asks to be called again while it fills the buffer). */
  private static void deflateFlushed(Deflater deflater, byte[] plain, ByteArrayOutputStream to, byte[] buffer) {
    deflater.setInput(plain);
    int written;
    do {
      written = deflater.deflate(buffer, 0, buffer.length, Deflater.FULL_FLUSH);
      to.write(buffer, 0, written);
    } while (written == buffer.length);
  }

  private void writeIntLittleEndian(int value) {
    out.write(value);
    out.write(value >>> 8);
    out.write(value >>> 16);
    out.write(value >>> 24);
  }
}
