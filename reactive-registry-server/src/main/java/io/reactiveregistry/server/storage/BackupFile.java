package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.storage.ChangeCodec.StoredChange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A backup of the durable state: a header line, then one line per value in the form of a
 * snapshot's lines (JSON, readable with {@code jq}). The header names the revision the values are
 * at (revisions continue above it after a restore), the log index they were copied at, how many
 * lines follow, and the SHA-256 of those lines' bytes, so that a file cut short or changed is
 * refused before anything is restored from it.
 */
public final class BackupFile {
  static final int FORMAT = 1;

  /** The first line. {@code backup}: the format; {@code takenBy}: the member that wrote it. */
  record Header(int backup, long revision, long index, int values, String sha256, String takenAt, String takenBy) {}

  /** What a verified backup holds. */
  public record Contents(List<DurableChange> values, long revision, long index) {}

  private BackupFile() {}

  /** The file's bytes for {@code values} at {@code revision}, copied at log index {@code index}. */
  static byte[] encode(List<DurableChange> values, long revision, long index, Instant takenAt, String takenBy) {
    ByteArrayOutputStream body = new ByteArrayOutputStream(Math.max(1024, values.size() * 160));
    for (DurableChange value : values) {
      body.writeBytes(ChangeCodec.encodeLine(ChangeCodec.stored(value)).getBytes(StandardCharsets.UTF_8));
      body.write('\n');
    }
    byte[] lines = body.toByteArray();
    Header header = new Header(FORMAT, revision, index, values.size(), sha256(lines, 0, lines.length),
        takenAt.toString(), takenBy);
    byte[] first = (ChangeCodec.encodeLine(header) + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] file = new byte[first.length + lines.length];
    System.arraycopy(first, 0, file, 0, first.length);
    System.arraycopy(lines, 0, file, first.length, lines.length);
    return file;
  }

  /**
   * Reads and verifies {@code file}: refused, naming what is wrong, when it is not a backup of this
   * registry, of another format, or damaged (its checksum or its count of values does not match).
   * Blocking: file I/O.
   */
  public static Contents read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    int newline = indexOf(bytes, (byte) '\n');
    Header header;
    try {
      header = newline < 0 ? null
          : ChangeCodec.decodeLine(new String(bytes, 0, newline, StandardCharsets.UTF_8), Header.class);
    } catch (UncheckedIOException e) {
      header = null;
    }
    if (header == null || header.backup() == 0 || header.sha256() == null) {
      throw new IOException("backup file " + file + " is not a backup of this registry: its first line must be the "
          + "header that 'registry-cli backup' writes ({\"backup\":" + FORMAT + ",...})");
    }
    if (header.backup() != FORMAT) {
      throw new IOException("backup file " + file + " has format " + header.backup() + "; this server reads "
          + FORMAT);
    }
    String actual = sha256(bytes, newline + 1, bytes.length - newline - 1);
    if (!actual.equals(header.sha256())) {
      throw new IOException("backup file " + file + " is damaged: the SHA-256 of its values is " + actual
          + ", its header says " + header.sha256() + " (the file was cut short or changed); nothing was restored");
    }
    List<DurableChange> values = new ArrayList<>(header.values());
    int start = newline + 1;
    while (start < bytes.length) {
      int end = indexOf(bytes, (byte) '\n', start);
      if (end < 0) {
        end = bytes.length;
      }
      String line = new String(bytes, start, end - start, StandardCharsets.UTF_8);
      values.add(ChangeCodec.change(ChangeCodec.decodeLine(line, StoredChange.class)));
      start = end + 1;
    }
    if (values.size() != header.values()) {
      throw new IOException("backup file " + file + " is damaged: it holds " + values.size() + " values, its header "
          + "says " + header.values() + "; nothing was restored");
    }
    return new Contents(values, header.revision(), header.index());
  }

  private static int indexOf(byte[] bytes, byte wanted) {
    return indexOf(bytes, wanted, 0);
  }

  private static int indexOf(byte[] bytes, byte wanted, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  private static String sha256(byte[] bytes, int offset, int length) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      digest.update(bytes, offset, length);
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
