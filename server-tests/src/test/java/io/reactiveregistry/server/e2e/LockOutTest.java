package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.security.SecurityConfig;
import io.rsocket.exceptions.RejectedSetupException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The guessing limit, through every door and every way a token travels: an address that presents
 * {@value #MAX} tokens that are not valid has every token it presents refused, valid or not,
 * whichever way it comes, until the window ends; the window is timed by the server's clock, which
 * the test moves.
 */
class LockOutTest {
  static final int MAX = 10;
  static final Duration WINDOW = Duration.ofMinutes(1);
  static final String VALID = "ops-6f1c2b7a90";
  static final String GUESS = "guess-0000000000";

  @TempDir
  Path dir;
  ManualClock clock = new ManualClock(1_000_000);
  ServerFixture fixture;
  HttpClient http = HttpClient.newHttpClient();

  /** How a token reaches the server. */
  enum Way {
    TCP_SETUP, TCP_REQUEST, WEBSOCKET_SETUP, WEBSOCKET_REQUEST, HTTP_POST, HTTP_GET
  }

  @AfterEach
  void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  private void start() throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, TokenFile.of(Map.of(VALID, "{\"*\":[\"read\",\"write\",\"admin\"]}")));
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, tokens, null,
        MAX, WINDOW, null)), clock);
  }

  @ParameterizedTest(name = "locked out through {0}")
  @EnumSource(Way.class)
  void tooManyTokensThatAreNotValidLockTheAddressOutOfEveryDoorUntilTheWindowEnds(Way guessedThrough)
      throws Exception {
    start();
    for (int i = 0; i < MAX; i++) {
      assertThat(present(guessedThrough, GUESS)).as("guess %d through %s", i + 1, guessedThrough)
          .startsWith("UNAUTHENTICATED");
    }
    for (Way way : Way.values()) {
      assertThat(present(way, VALID)).as("a valid token through %s, once locked out", way)
          .startsWith("LIMIT_EXCEEDED").contains("too many tokens that are not valid came from 127.0.0.1")
          .doesNotContain(VALID);
    }
    clock.advance(WINDOW.minusSeconds(1));
    assertThat(present(Way.HTTP_GET, VALID)).as("a second before the window ends").startsWith("LIMIT_EXCEEDED");
    clock.advance(Duration.ofSeconds(1));
    for (Way way : Way.values()) {
      assertThat(present(way, VALID)).as("a valid token through %s once the window ended", way).isEqualTo("SERVED");
    }
    assertThat(fixture.server().meters().scrape())
        .containsPattern("(?m)^registry_authentications_failed_total (1[0-9]|[2-9][0-9])\\.0$");
  }

  /** SERVED, or the refusal's code and message. */
  private String present(Way way, String token) throws Exception {
    int port = fixture.port();
    int webSocket = fixture.server().webSocketPort();
    return switch (way) {
      case TCP_SETUP -> rsocket(WireClient.connectWithToken(port, "lock-out", token), false, token);
      case TCP_REQUEST -> rsocket(WireClient.connect(port, "lock-out"), true, token);
      case WEBSOCKET_SETUP -> rsocket(WireClient.connectWebSocketWithToken(webSocket, "lock-out", token), false, token);
      case WEBSOCKET_REQUEST -> rsocket(WireClient.connectWebSocket(webSocket, "lock-out"), true, token);
      case HTTP_POST -> http(HttpRequest.newBuilder(uri("/api/v1/server.info"))
          .POST(HttpRequest.BodyPublishers.ofString("{}")), token);
      case HTTP_GET -> http(HttpRequest.newBuilder(uri("/api/v1/services")).GET(), token);
    };
  }

  private static String rsocket(WireClient connection, boolean perRequest, String token) {
    try (connection) {
      (perRequest ? connection.bearer(token) : connection).call("server.info", "{}");
      return "SERVED";
    } catch (RejectedSetupException e) { // a SETUP's refusal carries the message alone
      return (e.getMessage().contains("too many tokens") ? "LIMIT_EXCEEDED: " : "UNAUTHENTICATED: ") + e.getMessage();
    } catch (RuntimeException e) {
      ErrorBody error = WireClient.errorOf(e);
      return error.code() + ": " + error.message();
    }
  }

  private String http(HttpRequest.Builder request, String token) throws Exception {
    HttpResponse<String> answer = http.send(request.header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() == 200) {
      return "SERVED";
    }
    ErrorBody error = io.reactiveregistry.protocol.codec.JsonCodec.json().decode(answer.body(), ErrorBody.class);
    int expected = switch (error.code()) {
      case "UNAUTHENTICATED" -> 401;
      case "LIMIT_EXCEEDED" -> 429;
      default -> -1;
    };
    assertThat(answer.statusCode()).as("the status of " + error.code()).isEqualTo(expected);
    return error.code() + ": " + error.message();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path);
  }
}
