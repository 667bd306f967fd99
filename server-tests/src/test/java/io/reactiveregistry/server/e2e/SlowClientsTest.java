package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.transport.ServerLimits;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Idle and slow HTTP clients, on the HTTP port and the WebSocket port: an idle keep-alive
 * connection is closed, and so is one that dribbles its request headers a byte at a time, while a
 * client that sends its request is answered.
 */
class SlowClientsTest {
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withLimits(ServerLimits.DEFAULTS.withHttpIdleTimeout(1_500)));

  @AfterEach
  void stop() {
    fixture.close();
  }

  private int port(String which) {
    return which.equals("http") ? fixture.server().httpPort() : fixture.server().webSocketPort();
  }

  /** Reads until the server closes the socket; the time it took, in ms (-1: still open after 15 s). */
  private static long millisUntilClosed(Socket socket, long since) throws Exception {
    socket.setSoTimeout(15_000);
    InputStream in = socket.getInputStream();
    try {
      while (in.read() >= 0) {
        // drain what the server sends (an answer, if any)
      }
    } catch (java.net.SocketTimeoutException stillOpen) {
      return -1;
    } catch (java.net.SocketException reset) {
      // closed
    }
    return (System.nanoTime() - since) / 1_000_000;
  }

  @ParameterizedTest
  @ValueSource(strings = {"http", "websocket"})
  void aConnectionThatDribblesItsHeadersIsClosedAtTheDeadline(String which) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port(which))) {
      long start = System.nanoTime();
      OutputStream out = socket.getOutputStream();
      out.write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      Thread dribble = new Thread(() -> {
        try {
          for (int i = 0; i < 40 && !socket.isClosed(); i++) {
            Thread.sleep(250); // well inside any idle timer
            out.write('X');
            out.flush();
          }
        } catch (Exception closed) {
          // the server closed it
        }
      });
      dribble.start();
      long closedAfter = millisUntilClosed(socket, start);
      assertThat(closedAfter).as("closed by the 1.5 s timeout, however it dribbles").isBetween(1_000L, 8_000L);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"http", "websocket"})
  void anIdleConnectionIsClosedAndAPromptOneIsAnswered(String which) throws Exception {
    try (Socket idle = new Socket("127.0.0.1", port(which))) {
      long start = System.nanoTime();
      assertThat(millisUntilClosed(idle, start)).isBetween(1_000L, 8_000L);
    }
    if (which.equals("http")) {
      try (Socket prompt = new Socket("127.0.0.1", port(which))) {
        prompt.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
        String answer = new String(prompt.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(answer).startsWith("HTTP/1.1 200").contains("\"status\":\"UP\"");
      }
    }
  }
}
