package io.reactiveregistry.server.e2e;

import static io.reactiveregistry.server.e2e.TokensEndToEndTest.APP;
import static io.reactiveregistry.server.e2e.TokensEndToEndTest.OPS;
import static io.reactiveregistry.server.e2e.TokensEndToEndTest.READER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.SecurityConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The token file is live: revoking a token closes the connections that presented it (and so
 * releases their instances), a change of permissions applies to open connections, a file that
 * breaks a rule leaves the tokens before it in force, and no token ever reaches the log.
 */
class TokenRevocationTest {
  private static final String SERVICE = "{\"namespace\":\"prod\",\"service\":\"orders\"}";
  private static final String REGISTER =
      "{\"namespace\":\"prod\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}";

  @TempDir
  Path dir;
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private ServerFixture fixture;
  private Path file;

  private ServerFixture start(Map<String, String> grants) throws Exception {
    return start(grants, SecurityConfig.DEFAULTS.maxFailedAuthentications());
  }

  private ServerFixture start(Map<String, String> grants, int maxFailedAuthentications) throws Exception {
    logged.start();
    ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).addAppender(logged);
    file = dir.resolve("tokens.json");
    Files.writeString(file, TokenFile.of(grants));
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, file, null,
        maxFailedAuthentications, Duration.ofMinutes(1))));
    return fixture;
  }

  @AfterEach
  void stop() {
    ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).detachAppender(logged);
    if (fixture != null) {
      fixture.close();
    }
  }

  private int instances(WireClient ops) {
    return ops.call("service.query", SERVICE, ServiceSnapshot.class).instances().size();
  }

  @Test
  void revokingATokenClosesItsConnectionsAndReleasesTheirInstances() throws Exception {
    start(Map.of(OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}", APP, "{\"prod\":[\"read\",\"write\"]}"));
    WireClient app = WireClient.connectWithToken(fixture.port(), "orders-app", APP);
    app.call("instance.register", REGISTER);
    WireClient ops = fixture.connect("ops").bearer(OPS);
    assertThat(instances(ops)).isEqualTo(1);

    Files.writeString(file, TokenFile.of(Map.of(OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}")));

    await().atMost(Duration.ofSeconds(10)).until(app::isDisposed);
    await().atMost(Duration.ofSeconds(5)).until(() -> instances(ops) == 0);
    assertThat(ops.call("server.info", "{}")).as("other tokens' connections stay").contains("\"protocol\":1");
    assertThat(WireClient.errorOf(catchError(() -> fixture.connect("again").bearer(APP).call("service.query", SERVICE)))
        .code()).isEqualTo("UNAUTHENTICATED");
    WireClient intruder = WireClient.connectWithToken(fixture.port(), "intruder", APP); // revoked now
    assertThat(catchError(() -> intruder.call("server.info", "{}"))).hasMessageContaining("not valid");
    assertNoTokenLogged();
  }

  @Test
  void aChangeOfPermissionsAppliesToOpenConnections() throws Exception {
    start(Map.of(OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}", READER, "{\"team-*\":[\"read\"]}"));
    WireClient reader = WireClient.connectWithToken(fixture.port(), "reader", READER);
    assertThat(reader.error("instance.register", REGISTER).code()).isEqualTo("FORBIDDEN");

    Files.writeString(file, TokenFile.of(Map.of(OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}",
        READER, "{\"team-*\":[\"read\"],\"prod\":[\"write\"]}")));

    await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
        .until(() -> reader.call("instance.register", REGISTER).contains("127.0.0.5#8080#DEFAULT"));
    assertThat(reader.isDisposed()).isFalse();
  }

  @Test
  void aBrokenFileLeavesTheTokensBeforeItInForce() throws Exception {
    start(Map.of(APP, "{\"prod\":[\"read\",\"write\"]}"));
    WireClient app = WireClient.connectWithToken(fixture.port(), "orders-app", APP);

    Files.writeString(file, "{\"tokens\":[{\"name\":\"x\",\"sha256\":\"00\",\"permissions\":{\"*\":[\"read\"]}}]}");

    await().atMost(Duration.ofSeconds(10)).until(() -> logged.list.stream()
        .anyMatch(event -> event.getFormattedMessage().contains("tokens[0].sha256 must be the SHA-256")));
    assertThat(app.call("instance.register", REGISTER)).contains("127.0.0.5#8080#DEFAULT");
    assertThat(app.isDisposed()).isFalse();
  }

  @Test
  void anAddressThatGuessesTooOftenIsRefusedEvenWithAValidToken() throws Exception {
    start(Map.of(APP, "{\"prod\":[\"read\",\"write\"]}"), 3);
    WireClient guesser = WireClient.connectFrom("127.0.0.3", fixture.port(), "guesser");
    for (int i = 0; i < 3; i++) {
      assertThat(guesser.bearer("guess-" + i).error("service.list", "{\"namespace\":\"prod\"}").code())
          .isEqualTo("UNAUTHENTICATED");
    }

    var locked = guesser.bearer(APP).error("service.list", "{\"namespace\":\"prod\"}");
    assertThat(locked.code()).isEqualTo("LIMIT_EXCEEDED");
    assertThat(locked.message()).contains("127.0.0.3", "s more");
    WireClient again = WireClient.connectFrom("127.0.0.3", fixture.port(), "guesser");
    assertThat(again.bearer(APP).error("service.list", "{\"namespace\":\"prod\"}").code())
        .as("a new connection from the same address too").isEqualTo("LIMIT_EXCEEDED");
    assertThat(fixture.connect("elsewhere").bearer(APP).call("service.list", "{\"namespace\":\"prod\"}"))
        .as("another address is served").contains("\"services\"");
    assertThat(guesser.isDisposed()).isFalse();
  }

  private static Throwable catchError(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected the call to fail");
  }

  /** Neither a token nor its hash's source appears in anything logged during the run. */
  private void assertNoTokenLogged() {
    assertThat(logged.list).isNotEmpty();
    for (ILoggingEvent event : logged.list) {
      String line = event.getFormattedMessage() + (event.getThrowableProxy() == null ? ""
          : event.getThrowableProxy().getMessage());
      assertThat(line).doesNotContain(APP).doesNotContain(OPS).doesNotContain(READER);
    }
  }
}
