package io.reactiveregistry.server.eureka;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A large kept document is sent from one copy in direct memory, shared by every send, and given
 * back when the document is replaced, while the sends under way still hold it; after that, and for
 * a document never kept, the bytes are sent from the heap.
 */
class RenderedTest {
  /** Hex noise: it compresses by half at most, so 300 KB gzip to well over the 64 KB kept off the heap. */
  private static byte[] document() {
    Random random = new Random(7);
    StringBuilder text = new StringBuilder();
    while (text.length() < 300_000) {
      text.append(Long.toHexString(random.nextLong()));
    }
    return text.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  @Test
  void aKeptDocumentIsSentFromOneDirectCopyUntilItIsReleased() {
    Rendered rendered = Rendered.of(document(), "application/json");
    byte[] gzipped = ByteBufUtil.getBytes(rendered.content(true));
    assertThat(gzipped.length).isGreaterThan(64 * 1024);
    rendered.sendFromDirectMemory();

    ByteBuf first = rendered.content(true);
    ByteBuf second = rendered.content(true);
    assertThat(first.isDirect()).isTrue();
    assertThat(first.memoryAddress()).as("one copy for every send").isEqualTo(second.memoryAddress());
    assertThat(ByteBufUtil.getBytes(first)).isEqualTo(gzipped);
    second.skipBytes(100); // one send's progress is its own
    assertThat(first.readableBytes()).isEqualTo(gzipped.length);

    rendered.release(); // replaced: the sends under way still hold the copy
    assertThat(first.refCnt()).isPositive();
    assertThat(ByteBufUtil.getBytes(first)).isEqualTo(gzipped);
    assertThat(first.release()).isFalse();
    assertThat(second.release()).as("the last send gives the copy back").isTrue();

    ByteBuf after = rendered.content(true);
    assertThat(after.isDirect()).as("sent from the heap once released").isFalse();
    assertThat(ByteBufUtil.getBytes(after)).isEqualTo(gzipped);
    after.release();
  }

  @Test
  void aDocumentNeverKeptIsSentFromTheHeap() {
    Rendered rendered = Rendered.of(document(), "application/json");
    ByteBuf zipped = rendered.content(true);
    assertThat(zipped.isDirect()).isFalse();
    zipped.release();
    ByteBuf plain = rendered.content(false);
    assertThat(ByteBufUtil.getBytes(plain)).isEqualTo(document());
    plain.release();
  }
}
