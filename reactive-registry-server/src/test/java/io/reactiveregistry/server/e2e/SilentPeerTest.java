package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.rsocket.frame.FrameLengthCodec;
import io.rsocket.frame.RequestResponseFrameCodec;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.util.DefaultPayload;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A peer that sets up with a short keepalive, registers, then goes silent without closing its
 * socket (a frozen process, a cut cable): the server honours the peer's own keepalive settings,
 * closes the connection and releases its instances.
 */
class SilentPeerTest {

  @Test
  void aPeerSilentPastItsKeepaliveLifetimeIsDisconnectedAndReleased() throws Exception {
    try (ServerFixture fixture = new ServerFixture();
        Socket socket = new Socket("127.0.0.1", fixture.port())) {
      OutputStream out = socket.getOutputStream();
      ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
      write(out, SetupFrameCodec.encode(alloc, false, 200, 1_000, Unpooled.EMPTY_BUFFER,
          Protocol.METADATA_MIME_TYPE, Protocol.DATA_MIME_TYPE, DefaultPayload.create("{\"client\":\"frozen\"}")));
      ByteBuf body = Unpooled.copiedBuffer(RegistryEndToEndTest.registration("orders", "127.0.0.5", 8080),
          StandardCharsets.UTF_8);
      write(out, RequestResponseFrameCodec.encode(alloc, 1, false, RouteMetadata.encode(alloc, "instance.register"),
          body));

      WireClient watcher = fixture.connect("watcher");
      await().atMost(Duration.ofSeconds(2)).until(() ->
          watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().size() == 1);

      // The peer now says nothing: no keepalive. Its lifetime is 1 s.
      await().atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(100)).until(() ->
          watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().isEmpty());
      assertThat(fixture.server().openConnections()).isEqualTo(1);
    }
  }

  private static void write(OutputStream out, ByteBuf frame) throws Exception {
    ByteBuf framed = FrameLengthCodec.encode(ByteBufAllocator.DEFAULT, frame.readableBytes(), frame);
    byte[] bytes = new byte[framed.readableBytes()];
    framed.readBytes(bytes);
    framed.release();
    out.write(bytes);
    out.flush();
  }
}
