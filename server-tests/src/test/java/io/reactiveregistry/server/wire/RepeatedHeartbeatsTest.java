package io.reactiveregistry.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.ServiceKey;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A heartbeat body sent again is the same command, and never another body's. */
class RepeatedHeartbeatsTest {
  private final Owner alice = new Owner(1, "alice@127.0.0.1");
  private final RepeatedHeartbeats heartbeats = new RepeatedHeartbeats();

  private static String body(int port) {
    return "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":" + port + "}}";
  }

  /** In a pooled direct buffer, at an offset, as a frame's data arrives. */
  private static ByteBuf frame(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    ByteBuf frame = ByteBufAllocator.DEFAULT.directBuffer(bytes.length + 16);
    frame.writeZero(16).writeBytes(bytes);
    return frame.skipBytes(16);
  }

  private Command decode(String json) {
    ByteBuf frame = frame(json);
    try {
      return heartbeats.decode(alice, frame);
    } finally {
      frame.release();
    }
  }

  private Command decodedAfresh(String json) {
    return CommandDecoder.decode(Route.INSTANCE_HEARTBEAT, alice,
        Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aBodySentAgainIsTheCommandDecodedTheFirstTime() {
    Command first = decode(body(8080));

    assertThat(first).isEqualTo(new Command.Heartbeat(alice, ServiceKey.of(null, null, "orders"),
        InstanceSpec.of("instance", "127.0.0.5", 8080, null, null, null, null)));
    assertThat(decode(body(8080))).isSameAs(first);
  }

  @Test
  void bodiesThatDifferInOneByteAreEachTheirOwnCommand() {
    Command a = decode(body(8080));
    Command b = decode(body(8081));
    Command withMetadata = decode("{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080,"
        + "\"metadata\":{\"zone\":\"a\"}}}");

    assertThat(b).isEqualTo(decodedAfresh(body(8081))).isNotEqualTo(a);
    assertThat(withMetadata).isNotEqualTo(a);
    assertThat(decode(body(8080))).isEqualTo(a);
    assertThat(decode(body(8081))).isEqualTo(b);
  }

  @Test
  void moreBodiesThanAreKeptStillDecodeEachToItsOwnCommand() {
    for (int round = 0; round < 3; round++) {
      for (int port = 1000; port < 2500; port++) {
        assertThat(decode(body(port))).as("port %d, round %d", port, round).isEqualTo(decodedAfresh(body(port)));
      }
    }
  }

  @Test
  void aBodyThatBreaksARuleIsRefusedEveryTimeNamingTheField() {
    String badPort = body(70000);

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> decode(badPort)).hasMessageContaining("instance.port");
    }
  }

  @Test
  void anotherConnectionsIdenticalBodyIsItsOwnCommand() {
    Owner bob = new Owner(2, "bob@127.0.0.1");
    Command alices = decode(body(8080));
    ByteBuf frame = frame(body(8080));
    try {
      assertThat(heartbeats.decode(bob, frame)).isEqualTo(new Command.Heartbeat(bob,
          ServiceKey.of(null, null, "orders"), InstanceSpec.of("instance", "127.0.0.5", 8080, null, null, null, null)))
          .isNotEqualTo(alices);
    } finally {
      frame.release();
    }
  }
}
