package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.rsocket.frame.RequestResponseFrameCodec;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

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
      WireClient watcher = fixture.connect("watcher");
      List<String> events = new CopyOnWriteArrayList<>();
      Disposable watch = watcher.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(events::add);
      await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 1);

      OutputStream out = socket.getOutputStream();
      ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
      out.write(RawFrames.setup(1_000, 2_000, "{\"client\":\"frozen\"}"));
      ByteBuf body = Unpooled.copiedBuffer(Registrations.registration("orders", "127.0.0.5", 8080),
          StandardCharsets.UTF_8);
      out.write(RawFrames.framed(RequestResponseFrameCodec.encode(alloc, 1, false,
          RouteMetadata.encode(alloc, "instance.register"), body)));
      // The answer's first bytes: the registration was applied (a busy machine may take a while).
      socket.setSoTimeout(10_000);
      assertThat(socket.getInputStream().read()).isNotNegative();
      await().atMost(Duration.ofSeconds(10)).until(() -> events.stream().anyMatch(e -> e.contains("127.0.0.5")));

      // The peer now says nothing: no keepalive, past its 2 s lifetime. The server closes it and
      // the watcher is told the instance is gone.
      await().atMost(Duration.ofSeconds(15)).until(() ->
          events.get(events.size() - 1).startsWith("{\"type\":\"REMOVE\""));
      await().atMost(Duration.ofSeconds(5)).until(() -> fixture.server().openConnections() == 1);
      assertThat(watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
          .isEmpty();
      watch.dispose();
    }
  }
}
