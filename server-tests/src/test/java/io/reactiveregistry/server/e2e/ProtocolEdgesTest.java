package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.rsocket.frame.RequestResponseFrameCodec;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Frames a well-behaved client never sends, on a bare socket. */
class ProtocolEdgesTest {
  private final ServerFixture fixture = new ServerFixture(io.reactiveregistry.server.ServerConfig.ephemeralLoopback()
      .withLimits(io.reactiveregistry.server.transport.ServerLimits.DEFAULTS.withSetup(64 * 1024, 1_500)));

  @AfterEach
  void stop() {
    fixture.close();
  }

  /** A frame header alone: stream 0, the given 6-bit type and flags. */
  private static byte[] bareFrame(int type, int flags, byte[] body) {
    ByteBuf frame = Unpooled.buffer();
    frame.writeInt(0);
    frame.writeShort((type << 10) | flags);
    frame.writeBytes(body);
    return RawFrames.framed(frame);
  }

  private Socket setUp() throws Exception {
    Socket socket = new Socket("127.0.0.1", fixture.port());
    socket.getOutputStream().write(RawFrames.setup(30_000, 90_000, "{\"client\":\"edge\"}"));
    return socket;
  }

  private static byte[] register(int streamId, String ip) {
    return RawFrames.framed(RequestResponseFrameCodec.encode(ByteBufAllocator.DEFAULT, streamId, false,
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, "instance.register"),
        Unpooled.copiedBuffer(Registrations.registration("orders", ip, 8080), StandardCharsets.UTF_8)));
  }

  private int instances(WireClient client) {
    return client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().size();
  }

  @Test
  void anUnknownFrameWithTheIgnoreFlagIsIgnoredAndTheConnectionGoesOn() throws Exception {
    WireClient watcher = fixture.connect("watcher");
    try (Socket socket = setUp()) {
      OutputStream out = socket.getOutputStream();
      out.write(bareFrame(0x20, 0x200, new byte[] {1, 2, 3})); // type 0x20 is not defined; IGNORE is set
      out.write(register(1, "127.0.0.5"));
      await().atMost(Duration.ofSeconds(10)).until(() -> instances(watcher) == 1);
    }
  }

  @Test
  void aLeaseFrameFromAClientClosesOnlyThatConnection() throws Exception {
    WireClient bystander = fixture.connect("bystander");
    bystander.call("instance.register", Registrations.registration("orders", "127.0.0.2", 8080));
    try (Socket socket = setUp()) {
      OutputStream out = socket.getOutputStream();
      out.write(register(1, "127.0.0.5"));
      await().atMost(Duration.ofSeconds(10)).until(() -> instances(bystander) == 2);

      byte[] lease = new byte[8];
      lease[3] = 100; // time to live 100 ms
      lease[7] = 5; // 5 requests
      out.write(bareFrame(0x02, 0, lease)); // LEASE: a server-to-client frame
      socket.setSoTimeout(10_000);
      InputStream in = socket.getInputStream();
      String received = new String(in.readAllBytes(), StandardCharsets.UTF_8); // until the server closes
      assertThat(received).as("a CONNECTION_ERROR saying why").contains("LEASE frames are sent by servers");
      await().atMost(Duration.ofSeconds(10)).until(() -> instances(bystander) == 1);
      assertThat(bystander.isDisposed()).isFalse();
    }
  }

  /** Reads until the server closes the socket; how long that took in ms, or -1 if still open after 10 s. */
  private static long millisUntilClosed(Socket socket) throws Exception {
    long start = System.nanoTime();
    socket.setSoTimeout(10_000);
    try {
      socket.getInputStream().readAllBytes();
    } catch (java.net.SocketTimeoutException stillOpen) {
      return -1;
    } catch (java.net.SocketException reset) {
      // closed
    }
    return (System.nanoTime() - start) / 1_000_000;
  }

  @Test
  void aFirstFrameLargerThanASetupClosesTheConnectionBeforeItIsBuffered() throws Exception {
    WireClient bystander = fixture.connect("bystander");
    try (Socket socket = new Socket("127.0.0.1", fixture.port())) {
      // Announces a frame of 2 MiB - 1, then sends a little of it: nothing more is read or kept.
      socket.getOutputStream().write(new byte[] {0x1F, (byte) 0xFF, (byte) 0xFF, 0, 0, 0, 0});
      assertThat(millisUntilClosed(socket)).isBetween(0L, 1_000L);
    }
    assertThat(bystander.call("server.info", "{}")).contains("\"protocol\":1");
  }

  @Test
  void aConnectionThatNeverSetsUpIsClosedAtTheDeadline() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", fixture.port())) {
      socket.getOutputStream().write(new byte[] {0, 0, 40}); // a SETUP of 40 bytes is announced, none arrive
      assertThat(millisUntilClosed(socket)).as("closed by the 1.5 s setup deadline").isBetween(1_000L, 6_000L);
    }
  }
}
