package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.transport.ServerLimits;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.KeepAliveFrameCodec;
import io.rsocket.frame.PayloadFrameCodec;
import io.rsocket.frame.RequestResponseFrameCodec;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.util.DefaultPayload;
import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Memory a client can make the server hold: fragments of unfinished requests (per connection and
 * across the server) and keepalive answers. Bodies of 32 KiB, so frames and reassembled requests
 * of 64 KiB; 128 KiB of fragments per connection, 160 KiB across the server.
 */
class InboundBudgetsTest {
  private static final int KIB = 1024;
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withLimits(new ServerLimits(32 * KIB, 1_000, 32 * 1024 * 1024)
          .withFragments(new ServerLimits.FragmentLimits(128 * KIB, 160 * KIB))));
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable each : open) {
      each.close();
    }
    fixture.close();
  }

  @Test
  void unfinishedFragmentsPastTheConnectionsBudgetAreRefusedAndTheConnectionGoesOn() throws Exception {
    Peer peer = new Peer();
    for (int stream : new int[] {1, 3, 5}) {
      peer.firstFragment(stream, 40 * KIB);
    }
    peer.firstFragment(7, 40 * KIB);
    Frame refused = peer.read();
    assertThat(refused.streamId()).isEqualTo(7);
    assertThat(refused.text()).contains("LIMIT_EXCEEDED").contains("more than 131072 bytes on this connection");
    assertThat(fragmentsHeld()).isBetween(120.0 * KIB, 128.0 * KIB);

    peer.send(RequestResponseFrameCodec.encode(ByteBufAllocator.DEFAULT, 9, false,
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, "instance.register"), body(0)));
    Frame answer = peer.read();
    assertThat(answer.streamId()).isEqualTo(9);
    assertThat(answer.type()).isEqualTo(FrameType.NEXT_COMPLETE);

    peer.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> fragmentsHeld() == 0);
  }

  @Test
  void whenTheServersBudgetIsFullTheLargestHolderIsClosedAndTheRequestCanBeRetried() throws Exception {
    Peer largest = new Peer();
    for (int stream : new int[] {1, 3, 5}) {
      largest.firstFragment(stream, 40 * KIB);
    }
    Peer smaller = new Peer();
    smaller.firstFragment(1, 30 * KIB);
    await().atMost(Duration.ofSeconds(10)).until(() -> fragmentsHeld() >= 150 * KIB);

    Peer client = new Peer();
    client.firstFragment(1, 16 * KIB);
    assertThat(client.read().text()).contains("LIMIT_EXCEEDED").contains("retry shortly");
    Frame why = largest.read();
    assertThat(why.streamId()).isZero();
    assertThat(why.text()).contains("held the most bytes of unfinished fragmented requests");
    assertThat(largest.closed()).isTrue();

    await().atMost(Duration.ofSeconds(10)).until(() -> fragmentsHeld() < 40 * KIB);
    client.firstFragment(3, 16 * KIB);
    client.send(PayloadFrameCodec.encode(ByteBufAllocator.DEFAULT, 3, false, true, true, null, body(0)));
    Frame registered = client.read();
    assertThat(registered.streamId()).isEqualTo(3);
    assertThat(registered.text()).contains("\"revision\"");

    smaller.send(RequestResponseFrameCodec.encode(ByteBufAllocator.DEFAULT, 3, false,
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, "service.query"),
        Unpooled.copiedBuffer("{\"service\":\"orders\"}", StandardCharsets.UTF_8)));
    assertThat(smaller.read().text()).contains("127.0.0.5");
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "websocket"})
  void aRequestFragmentedPastOneFramesSizeGetsTheContractsErrorAndTheConnectionGoesOn(String transport) {
    ClientTransport connection = transport.equals("tcp") ? TcpClientTransport.create("127.0.0.1", fixture.port())
        : WebsocketClientTransport.create(URI.create("ws://127.0.0.1:" + fixture.server().webSocketPort() + "/rsocket"));
    RSocket rsocket = RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(DefaultPayload.create("{\"client\":\"fragmenting\"}"))
        .fragment(16 * KIB)
        .connect(connection)
        .block(Duration.ofSeconds(5));
    open.add(rsocket::dispose);

    String large = " ".repeat(100 * KIB) + Registrations.registration("orders", "127.0.0.5", 8080);
    assertThatThrownBy(() -> rsocket.requestResponse(WireClient.payload("instance.register", large))
            .block(Duration.ofSeconds(10)))
        .satisfies(error -> assertThat(WireClient.errorOf(error).code()).isEqualTo("LIMIT_EXCEEDED"))
        .satisfies(error -> assertThat(WireClient.errorOf(error).message())
            .contains("may not exceed 65536 bytes"));

    String small = " ".repeat(20 * KIB) + Registrations.registration("orders", "127.0.0.5", 8080);
    String answer = rsocket.requestResponse(WireClient.payload("instance.register", small))
        .map(payload -> payload.getDataUtf8()).block(Duration.ofSeconds(10));
    assertThat(answer).contains("\"revision\"");
  }

  @Test
  void keepaliveAnswersAreCappedPerConnection() throws Exception {
    Peer peer = new Peer();
    for (int i = 0; i < 200; i++) {
      peer.send(KeepAliveFrameCodec.encode(ByteBufAllocator.DEFAULT, true, 0, Unpooled.EMPTY_BUFFER));
    }
    int answered = 0;
    long until = System.nanoTime() + Duration.ofMillis(1_500).toNanos();
    peer.socket.setSoTimeout(200);
    while (System.nanoTime() < until) {
      try {
        if (peer.read().type() == FrameType.KEEPALIVE) {
          answered++;
        }
      } catch (SocketTimeoutException quiet) {
        // nothing more for now
      }
    }
    assertThat(answered).isBetween(1, 30);
    assertThat(fixture.server().meters().get("registry.keepalives.dropped").counter().count()).isGreaterThan(150);

    peer.socket.setSoTimeout(10_000);
    peer.send(RequestResponseFrameCodec.encode(ByteBufAllocator.DEFAULT, 1, false,
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, "service.list"), Unpooled.copiedBuffer("{}", StandardCharsets.UTF_8)));
    Frame listed;
    do {
      listed = peer.read();
    } while (listed.type() == FrameType.KEEPALIVE);
    assertThat(listed.streamId()).isEqualTo(1);
    assertThat(listed.type()).isEqualTo(FrameType.NEXT_COMPLETE);
  }

  private double fragmentsHeld() {
    return fixture.server().meters().get("registry.fragments.held").gauge().value();
  }

  /** A registration padded in front with {@code padding} spaces (JSON allows them). */
  private static ByteBuf body(int padding) {
    return Unpooled.copiedBuffer(" ".repeat(padding) + Registrations.registration("orders", "127.0.0.5", 8080),
        StandardCharsets.UTF_8);
  }

  record Frame(int streamId, FrameType type, String text) {}

  /** A connection set up on a bare socket, sending and reading whole frames. */
  private final class Peer implements AutoCloseable {
    final Socket socket = new Socket("127.0.0.1", fixture.port());
    final OutputStream out = socket.getOutputStream();
    final DataInputStream in = new DataInputStream(socket.getInputStream());

    Peer() throws Exception {
      open.add(this);
      socket.setSoTimeout(10_000);
      out.write(RawFrames.setup(30_000, 90_000, "{\"client\":\"peer\"}"));
    }

    void send(ByteBuf frame) throws Exception {
      out.write(RawFrames.framed(frame));
      out.flush();
    }

    /** The first fragment of a registration: the route, then {@code padding} bytes of the body; more follows. */
    void firstFragment(int streamId, int padding) throws Exception {
      send(RequestResponseFrameCodec.encode(ByteBufAllocator.DEFAULT, streamId, true,
          RouteMetadata.encode(ByteBufAllocator.DEFAULT, "instance.register"),
          Unpooled.copiedBuffer(" ".repeat(padding), StandardCharsets.UTF_8)));
    }

    Frame read() throws Exception {
      int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
      byte[] bytes = new byte[length];
      in.readFully(bytes);
      ByteBuf frame = Unpooled.wrappedBuffer(bytes);
      FrameType type = FrameHeaderCodec.frameType(frame);
      String text = type == FrameType.ERROR ? ErrorFrameCodec.dataUtf8(frame)
          : type == FrameType.KEEPALIVE ? "" : PayloadFrameCodec.data(frame).toString(StandardCharsets.UTF_8);
      return new Frame(FrameHeaderCodec.streamId(frame), type, text);
    }

    boolean closed() throws Exception {
      InputStream raw = socket.getInputStream();
      try {
        return raw.read() == -1;
      } catch (java.net.SocketException reset) {
        return true;
      }
    }

    @Override
    public void close() throws Exception {
      socket.close();
    }
  }
}
