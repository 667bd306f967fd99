package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.transport.ServerLimits;
import io.rsocket.frame.RequestResponseFrameCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer floods requests and never reads an answer. The server must not buffer answers for it
 * without bound: past the outbound backlog limit it closes the connection and releases what the
 * connection owned; other clients do not notice.
 */
class FloodingPeerTest {

  @Test
  @Timeout(60)
  void aPeerThatFloodsRequestsWithoutReadingIsDisconnectedAndReleased() throws Exception {
    ServerConfig config = ServerConfig.ephemeralLoopback()
        .withLimits(new ServerLimits(1024 * 1024, 1_000, 256 * 1024));
    try (ServerFixture fixture = new ServerFixture(config);
        Socket socket = new Socket("127.0.0.1", fixture.port())) {
      socket.setReceiveBufferSize(4 * 1024);
      OutputStream out = socket.getOutputStream();
      ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
      out.write(RawFrames.setup(30_000, 90_000, "{\"client\":\"flood\"}"));
      out.write(RawFrames.framed(RequestResponseFrameCodec.encode(alloc, 1, false,
          RouteMetadata.encode(alloc, "instance.register"),
          Unpooled.copiedBuffer(Registrations.registration("orders", "127.0.0.5", 8080), StandardCharsets.UTF_8))));
      WireClient watcher = fixture.connect("watcher");
      await().atMost(Duration.ofSeconds(5)).until(() ->
          watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().size() == 1);

      boolean disconnected = false;
      try {
        for (int batch = 0; batch < 400 && !disconnected; batch++) {
          ByteArrayOutputStream requests = new ByteArrayOutputStream();
          for (int i = 0; i < 1_000; i++) {
            int streamId = 3 + 2 * (batch * 1_000 + i);
            requests.write(RawFrames.framed(RequestResponseFrameCodec.encode(alloc, streamId, false,
                RouteMetadata.encode(alloc, "server.info"), Unpooled.copiedBuffer("{}", StandardCharsets.UTF_8))));
          }
          out.write(requests.toByteArray());
        }
      } catch (IOException closedByServer) {
        disconnected = true;
      }

      assertThat(disconnected).as("the server closed the flooding connection").isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() ->
          watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().isEmpty());
      assertThat(watcher.call("server.info", "{}")).contains("\"protocol\":1");
    }
  }
}
