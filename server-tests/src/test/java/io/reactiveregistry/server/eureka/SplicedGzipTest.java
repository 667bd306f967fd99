package io.reactiveregistry.server.eureka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Pieces compressed once and spliced between text compressed as it comes make one gzip member
 * that any gzip reader expands to the plain bytes in order, whatever the pieces' sizes (empty,
 * small, larger than the compressor's buffer) and however often a piece is reused.
 */
class SplicedGzipTest {
  private final Random random = new Random(42);

  /** Text that compresses (repeated field names) with some noise, as a rendered document is. */
  private byte[] piece(int length) {
    StringBuilder text = new StringBuilder(length);
    while (text.length() < length) {
      text.append("{\"instanceId\":\"i-").append(random.nextInt(1_000_000)).append("\",\"status\":\"UP\"},");
    }
    return text.substring(0, length).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void splicedPiecesAndTextExpandToThePlainBytesInOrder() throws IOException {
    byte[][] pieces = {piece(0), piece(1), piece(700), piece(70_000), piece(300_000)};
    byte[][] compressed = new byte[pieces.length][];
    for (int i = 0; i < pieces.length; i++) {
      compressed[i] = SplicedGzip.compress(pieces[i]);
    }
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    SplicedGzip gzip = new SplicedGzip(1024);
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < pieces.length; i++) {
        String text = round + ":" + i + ",";
        gzip.add(text);
        plain.writeBytes(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        int which = (i * 3 + round) % pieces.length; // each piece spliced several times, in another order
        gzip.splice(pieces[which], compressed[which]);
        plain.writeBytes(pieces[which]);
      }
    }
    gzip.add("end");
    plain.writeBytes("end".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    byte[] member = gzip.finish();

    assertThat(gunzip(member)).isEqualTo(plain.toByteArray());
    assertThat(member.length).as("compressed").isLessThan(plain.size() / 2);
  }

  @Test
  void nothingAtAllIsAnEmptyMember() throws IOException {
    assertThat(gunzip(new SplicedGzip(0).finish())).isEmpty();
  }

  private static byte[] gunzip(byte[] member) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(member))) {
      return in.readAllBytes();
    }
  }
}
