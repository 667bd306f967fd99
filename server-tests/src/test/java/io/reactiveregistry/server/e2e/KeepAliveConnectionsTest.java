package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A keep-alive connection goes on being read whatever order its answers complete in. A request
 * that reaches the server before the previous answer on its connection is done with waits for it,
 * and once answered the connection's next request must be read: Reactor Netty 1.3.7 stopped
 * reading when that waiting request was answered at once (its issue 4361), so a Eureka client's
 * next fetch hung until its own timeout. Pipelining the two requests makes the order certain: the
 * first is answered on another thread (the Eureka door renders its documents on workers), the
 * second at once, without reading a body (the request layer's and the Eureka door's routes that
 * read one complete only as the request's end arrives, and were never stopped).
 */
class KeepAliveConnectionsTest {
  ServerFixture fixture;

  @AfterEach
  void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  @ParameterizedTest
  @CsvSource({"/eureka/apps, /health", "/eureka/apps/delta, /api/v1/services?namespace=public"})
  void theRequestAfterAPipelinedPairIsAnswered(String first, String second) throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback());
    try (Socket socket = new Socket("127.0.0.1", fixture.server().httpPort())) {
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      out.write((get(first) + get(second)).getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      assertThat(answerStatus(in)).as("the first request's answer").startsWith("HTTP/1.1 200");
      assertThat(answerStatus(in)).as("the second request's answer").startsWith("HTTP/1.1 200");

      out.write(get(second).getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String third;
      try {
        third = answerStatus(in);
      } catch (SocketTimeoutException e) {
        third = "no answer within 5 s: the server stopped reading the connection";
      }
      assertThat(third).as("the next request on the same connection").startsWith("HTTP/1.1 200");
    }
  }

  private static String get(String path) {
    return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n";
  }

  /** One answer read whole (its headers and its Content-Length of body); its status line. */
  private static String answerStatus(InputStream in) throws Exception {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return "the server closed the connection";
      }
      head.write(b);
    }
    String headers = head.toString(StandardCharsets.US_ASCII);
    int length = 0;
    for (String line : headers.split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    assertThat(headers.toLowerCase(java.util.Locale.ROOT)).as("answers here carry their length")
        .contains("content-length:");
    in.readNBytes(length);
    return headers.substring(0, headers.indexOf("\r\n"));
  }
}
