package io.reactiveregistry.loadtest.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A lean subscriber reads an UPSERT's send time from the event's bytes, and nothing else's. */
class SentAtTest {
  private static ByteBuf event(String json) {
    // An offset reader index, as a payload's data slice within its frame has.
    ByteBuf frame = Unpooled.copiedBuffer("xx" + json, StandardCharsets.UTF_8);
    return frame.skipBytes(2);
  }

  @Test
  void anUpsertsSendTimeIsRead() {
    assertThat(Steps.sentAt(event("{\"type\":\"UPSERT\",\"revision\":7,\"instance\":{\"ip\":\"127.0.0.1\","
        + "\"metadata\":{\"a\":\"b\",\"lt.sentAt\":\"123456789012\"}}}"))).isEqualTo(123_456_789_012L);
  }

  @Test
  void otherEventsAndMalformedTimesAreNotTimed() {
    assertThat(Steps.sentAt(event("{\"type\":\"SNAPSHOT\",\"instances\":[{\"metadata\":{\"lt.sentAt\":\"5\"}}]}")))
        .isEqualTo(-1);
    assertThat(Steps.sentAt(event("{\"type\":\"REMOVE\",\"instanceId\":\"127.0.0.1#9999#DEFAULT\"}"))).isEqualTo(-1);
    assertThat(Steps.sentAt(event("{\"type\":\"UPSERT\",\"instance\":{\"metadata\":{}}}"))).isEqualTo(-1);
    assertThat(Steps.sentAt(event("{\"type\":\"UPSERT\",\"instance\":{\"metadata\":{\"lt.sentAt\":\"12x\"}}}")))
        .isEqualTo(-1);
    assertThat(Steps.sentAt(event("{\"type\":\"UPSERT\",\"instance\":{\"metadata\":{\"lt.sentAt\":\"\"}}}")))
        .isEqualTo(-1);
    assertThat(Steps.sentAt(event("{\"type\":\"UPSERT\",\"instance\":{\"metadata\":{\"lt.sentAt\":\"12"))).isEqualTo(-1);
    assertThat(Steps.sentAt(event("{\"ty"))).isEqualTo(-1);
  }
}
