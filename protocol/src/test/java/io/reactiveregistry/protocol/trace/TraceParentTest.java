package io.reactiveregistry.protocol.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.reactiveregistry.protocol.codec.RequestMetadata;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.codec.TraceMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** W3C's {@code traceparent} as the recommendation's receivers read it, and the metadata entry that carries it. */
class TraceParentTest {
  private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void aValidValueIsReadWithItsSampledFlagAndWrittenBackTheSame() {
    TraceParent trace = TraceParent.parse(VALID).orElseThrow();
    assertThat(trace.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(trace.parentId()).isEqualTo("00f067aa0ba902b7");
    assertThat(trace.sampled()).isTrue();
    assertThat(trace.header()).isEqualTo(VALID);
    assertThat(TraceParent.parse(VALID.replace("-01", "-00")).orElseThrow().sampled()).isFalse();
    // Other flags than sampled are kept out of the decision: 0x03 is sampled, 0x02 is not.
    assertThat(TraceParent.parse(VALID.replace("-01", "-03")).orElseThrow().sampled()).isTrue();
    assertThat(TraceParent.parse(VALID.replace("-01", "-02")).orElseThrow().sampled()).isFalse();
  }

  @Test
  void aLaterVersionIsReadByItsFirstFourFields() {
    assertThat(TraceParent.parse("cc" + VALID.substring(2) + "-what-the-future-adds")).isPresent();
    assertThat(TraceParent.parse("cc" + VALID.substring(2))).isPresent();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "00-not-a-trace-01",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // trace id all zero
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // parent id all zero
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", // upper case
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // the forbidden version
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", // version 00 has four fields
      "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", // dashes in the wrong places
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"})
  void anInvalidValueIsIgnored(String value) {
    assertThat(TraceParent.parse(value)).as(value).isEmpty();
  }

  @Test
  void theMetadataEntryCarriesItBesideTheRoute() {
    CompositeByteBuf metadata = ByteBufAllocator.DEFAULT.compositeBuffer();
    metadata.addComponent(true, RouteMetadata.encode(ByteBufAllocator.DEFAULT, "instance.register"));
    TraceMetadata.add(metadata, ByteBufAllocator.DEFAULT, TraceParent.parse(VALID).orElseThrow());
    try {
      RequestMetadata read = RequestMetadata.read(metadata);
      assertThat(read.routes()).containsExactly("instance.register");
      assertThat(read.trace()).isEqualTo(TraceParent.parse(VALID).orElseThrow());
    } finally {
      metadata.release();
    }
  }
}
