package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.transport.ServerLimits;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.frame.ErrorFrameCodec;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each port holds a bounded number of connections, in all and from one remote address; a
 * connection past a limit is closed as soon as it is accepted, and a client elsewhere is served.
 * Other remote addresses are other loopback addresses (127.0.0.2, ...), bound as the source.
 */
class ConnectionLimitsTest {
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withLimits(ServerLimits.DEFAULTS.withConnections(new ConnectionDoor.Limits(5, 3), new ConnectionDoor.Limits(3, 2))));
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable each : open) {
      each.close();
    }
    fixture.close();
  }

  private WireClient connectFrom(String address) {
    WireClient client = WireClient.connectFrom(address, fixture.port(), "client-" + address);
    open.add(client);
    return client;
  }

  /** Connected, and answered once: the server has counted it (connections are admitted concurrently). */
  private WireClient admittedFrom(String address) {
    WireClient client = connectFrom(address);
    client.call("service.list", "{}");
    return client;
  }

  /** An HTTP connection the server has answered once, and that stays open (keep-alive). */
  private Socket httpAdmittedFrom(String address) throws Exception {
    Socket socket = socketFrom(address, fixture.server().httpPort());
    socket.setSoTimeout(10_000);
    socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: registry\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    byte[] answer = new byte[512];
    int read = socket.getInputStream().read(answer);
    assertThat(new String(answer, 0, read, StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
    return socket;
  }

  private Socket socketFrom(String address, int port) throws Exception {
    Socket socket = new Socket();
    socket.bind(new InetSocketAddress(address, 0));
    socket.connect(new InetSocketAddress("127.0.0.1", port));
    open.add(socket);
    return socket;
  }

  @Test
  void aFourthConnectionFromOneAddressReadsWhyAndIsClosedWhileAnotherAddressIsServed() throws Exception {
    WireClient first = admittedFrom("127.0.0.1");
    admittedFrom("127.0.0.1");
    admittedFrom("127.0.0.1");

    Socket fourth = socketFrom("127.0.0.1", fixture.port());
    fourth.getOutputStream().write(RawFrames.setup(30_000, 90_000, "{\"client\":\"fourth\"}"));
    fourth.setSoTimeout(10_000);
    String error = readErrorFrame(fourth.getInputStream());
    assertThat(error).contains("127.0.0.1 holds its limit of 3 connections on the tcp port");
    assertThat(fourth.getInputStream().read()).as("closed after the error").isEqualTo(-1);

    WireClient elsewhere = connectFrom("127.0.0.2");
    elsewhere.call("instance.register", Registrations.registration("orders", "127.0.0.9", 8080));
    assertThat(first.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances()).hasSize(1);
    assertThat(scrape()).contains("registry_connections_refused_total{limit=\"address\",port=\"tcp\"} 1.0");

    // A closed connection gives its place back.
    first.close();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      WireClient again = connectFrom("127.0.0.1");
      assertThat(again.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
          .hasSize(1);
    });
  }

  @Test
  void theSixthConnectionOnThePortIsRefusedWhateverItsAddress() {
    for (String address : List.of("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6")) {
      admittedFrom(address);
    }
    WireClient sixth = connectFrom("127.0.0.7");
    assertThatThrownBy(() -> sixth.call("service.query", "{\"service\":\"orders\"}"))
        .isInstanceOf(RejectedSetupException.class)
        .hasMessageContaining("the server holds its limit of 5 connections on its tcp port");
  }

  @Test
  void theHttpPortClosesAConnectionPastItsLimitsAndGoesOnAnswering() throws Exception {
    httpAdmittedFrom("127.0.0.1");
    httpAdmittedFrom("127.0.0.1");
    Socket third = socketFrom("127.0.0.1", fixture.server().httpPort());
    third.setSoTimeout(10_000);
    assertThat(third.getInputStream().read()).as("closed at once").isEqualTo(-1);

    await().atMost(Duration.ofSeconds(10)).until(() -> scrape().contains(
        "registry_connections_refused_total{limit=\"address\",port=\"http\"} 1.0"));
  }

  /** The message of the ERROR frame the server sends first. */
  private static String readErrorFrame(InputStream in) throws Exception {
    int length = (in.read() << 16) | (in.read() << 8) | in.read();
    byte[] frame = in.readNBytes(length);
    assertThat(frame).hasSize(length);
    return ErrorFrameCodec.dataUtf8(Unpooled.wrappedBuffer(frame));
  }

  /** Scraped from another address, so that the HTTP test's own limit does not refuse it. */
  private String scrape() throws Exception {
    try (Socket socket = new Socket()) {
      socket.bind(new InetSocketAddress("127.0.0.9", 0));
      socket.connect(new InetSocketAddress("127.0.0.1", fixture.server().httpPort()));
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: registry\r\nConnection: close\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
