package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.security.SignedTokens;
import io.reactiveregistry.server.security.StaticTokens;
import io.rsocket.exceptions.RejectedSetupException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;

/**
 * Tokens and permissions over the wire: every route asked by every kind of caller, on TCP with a
 * token in each request and on WebSocket with the token in the SETUP; refusals name the rule, change
 * nothing and leave the connection usable.
 */
class TokensEndToEndTest {
  static final String OPS = "ops-6f1c2b7a90";
  static final String APP = "orders-app-9d8e7f31";
  static final String READER = "team-reader-3c4d55";
  /** Signed tokens (HS256): the app's permissions, valid for an hour, and one that expired an hour ago. */
  static final String JWT_APP = SignedTokens.hs256("orders-jwt", Map.of("prod", List.of("read", "write")),
      Instant.now().plus(Duration.ofHours(1)));
  static final String JWT_EXPIRED = SignedTokens.hs256("orders-jwt", Map.of("prod", List.of("read", "write")),
      Instant.now().minus(Duration.ofHours(1)));

  @TempDir
  static Path dir;
  static ServerFixture fixture;

  /** The token file: ops may do everything everywhere, the app read and write in prod, the reader read in team-*. */
  static String tokenFile(Map<String, String> grantsByToken) {
    List<String> entries = new ArrayList<>();
    grantsByToken.forEach((token, grants) -> entries.add("{\"name\":\"" + token.substring(0, token.lastIndexOf('-'))
        + "\",\"sha256\":\"" + HexFormat.of().formatHex(StaticTokens.sha256(token)) + "\",\"permissions\":"
        + grants + "}"));
    return "{\"tokens\":[" + String.join(",", entries) + "]}";
  }

  static final Map<String, String> GRANTS = Map.of(
      OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}",
      APP, "{\"prod\":[\"read\",\"write\"]}",
      READER, "{\"team-*\":[\"read\"]}");

  @BeforeAll
  static void start() throws Exception {
    Path file = dir.resolve("tokens.json");
    Files.writeString(file, tokenFile(GRANTS));
    Path keys = dir.resolve("jwt-keys.json");
    Files.writeString(keys, SignedTokens.secretJwkSet());
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, file, keys,
        1_000_000, Duration.ofMinutes(1))));
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  /** Who asks. */
  enum Caller {
    NOBODY(null), BAD_TOKEN("not-a-token-of-this-server"), EXPIRED_JWT(JWT_EXPIRED), READER_OF_TEAMS(READER),
    ORDERS_APP(APP), ORDERS_APP_BY_JWT(JWT_APP), OPERATOR(OPS);

    final String token;

    Caller(String token) {
      this.token = token;
    }

    /** (The matrix presents many bad tokens from loopback: the failed-authentication budget is lifted here.) */

  /** What the token file grants, written out: null when served, else the code of the refusal. */
    String refusal(String permission, String namespace) {
      return switch (this) {
        case NOBODY, BAD_TOKEN, EXPIRED_JWT -> "UNAUTHENTICATED";
        case READER_OF_TEAMS -> permission == null || permission.equals("read") && namespace.startsWith("team-")
            ? null : "FORBIDDEN";
        case ORDERS_APP, ORDERS_APP_BY_JWT -> permission == null || !permission.equals("admin") && namespace.equals("prod")
            ? null : "FORBIDDEN";
        case OPERATOR -> null;
      };
    }
  }

  /** Every route, the permission the contract says it needs (null: only a principal), and a body in {@code %s}. */
  record Row(String route, boolean stream, String permission, String body) {}

  static final List<Row> ROUTES = List.of(
      new Row("instance.register", false, "write",
          "{\"namespace\":\"%s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"),
      new Row("instance.batch-register", false, "write",
          "{\"namespace\":\"%s\",\"service\":\"batch\",\"instances\":[{\"ip\":\"127.0.0.6\",\"port\":8080}]}"),
      new Row("instance.deregister", false, "write",
          "{\"namespace\":\"%s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":1}}"),
      new Row("service.query", false, "read", "{\"namespace\":\"%s\",\"service\":\"orders\"}"),
      new Row("service.list", false, "read", "{\"namespace\":\"%s\"}"),
      new Row("service.subscribe", true, "read", "{\"namespace\":\"%s\",\"service\":\"orders\"}"),
      new Row("admin.service.create", false, "admin", "{\"namespace\":\"%s\",\"service\":\"defined\"}"),
      new Row("admin.service.update", false, "admin",
          "{\"namespace\":\"%s\",\"service\":\"defined\",\"protectThreshold\":0.1}"),
      new Row("admin.service.get", false, "admin", "{\"namespace\":\"%s\",\"service\":\"defined\"}"),
      new Row("admin.service.delete", false, "admin", "{\"namespace\":\"%s\",\"service\":\"never-made\"}"),
      new Row("admin.instance.update", false, "admin",
          "{\"namespace\":\"%s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},\"weight\":2}"),
      new Row("admin.instance.patch", false, "admin",
          "{\"namespace\":\"%s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},\"weight\":3}"),
      new Row("admin.trace", true, "admin", "{\"namespace\":\"%s\"}"),
      new Row("server.info", false, null, "{}"));

  /** The code a request was refused with, or null when it was served (answered, or refused for another reason). */
  static String ask(WireClient client, Row row, String namespace) {
    String body = row.body().formatted(namespace);
    try {
      if (row.stream()) {
        client.stream(row.route(), body).take(Duration.ofMillis(150)).blockLast(Duration.ofSeconds(5));
      } else {
        client.call(row.route(), body);
      }
      return null;
    } catch (RuntimeException e) {
      ErrorBody error = WireClient.errorOf(e);
      return error.code().equals("UNAUTHENTICATED") || error.code().equals("FORBIDDEN") ? error.code()
          + ": " + error.message() : null;
    }
  }

  static long revision() {
    return fixture.server().runtime().read(RegistryReads::revision);
  }

  @ParameterizedTest(name = "{0}, a token in each request, over TCP")
  @EnumSource(Caller.class)
  void everyRouteAnswersEachCallerAsItsGrantsSay(Caller caller) {
    WireClient connection = fixture.connect("matrix");
    matrix(caller, caller.token == null ? connection : connection.bearer(caller.token), connection);
  }

  @ParameterizedTest(name = "{0}, the token in the SETUP, over WebSocket")
  @EnumSource(value = Caller.class, names = {"BAD_TOKEN", "EXPIRED_JWT"}, mode = EnumSource.Mode.EXCLUDE)
  void aSetupTokenSpeaksForEveryRequestOfItsConnection(Caller caller) {
    try (WireClient connection = WireClient.connectWebSocketWithToken(fixture.server().webSocketPort(), "matrix",
        caller.token)) {
      matrix(caller, connection, connection);
    }
  }

  private static void matrix(Caller caller, WireClient asking, WireClient connection) {
    SoftAssertions softly = new SoftAssertions();
    for (String namespace : List.of("prod", "team-a")) {
      for (Row row : ROUTES) {
        long before = revision();
        String refusal = ask(asking, row, namespace);
        String expected = caller.refusal(row.permission(), namespace);
        String what = caller + " asks " + row.route() + " in " + namespace;
        if (expected == null) {
          softly.assertThat(refusal).as(what).isNull();
        } else {
          softly.assertThat(refusal).as(what).startsWith(expected);
          softly.assertThat(revision()).as(what + ": nothing changed").isEqualTo(before);
          if (expected.equals("FORBIDDEN")) { // names the permission and the namespace
            softly.assertThat(refusal).as(what).contains(row.permission() + " permission", "'" + namespace + "'");
          }
        }
      }
    }
    softly.assertAll();
    assertThat(connection.isDisposed()).as("the connection stays open after refusals").isFalse();
    assertThat(connection.bearer(OPS).call("server.info", "{}")).contains("\"protocol\":1");
  }

  @Test
  void aBadTokenInTheSetupIsRefusedAndCounted() {
    WireClient intruder = WireClient.connectWithToken(fixture.port(), "intruder", "guess-1234");
    assertThatThrownBy(() -> intruder.call("server.info", "{}"))
        .isInstanceOf(RejectedSetupException.class)
        .hasMessageContaining("bearer token is not valid")
        .hasMessageNotContaining("guess-1234");
    assertThat(fixture.server().meters().scrape())
        .containsPattern("registry_connections_refused_total\\{limit=\"authentication\",port=\"rsocket\"} [1-9]")
        .containsPattern("(?m)^registry_authentications_failed_total [1-9]");
  }

  /** Signed tokens alone, without a token file, protect every route just the same. */
  @Test
  void withOnlyJwtKeysEveryRouteStillChecksItsCaller() throws Exception {
    try (ServerFixture jwtOnly = new ServerFixture(ServerConfig.ephemeralLoopback()
        .withSecurity(new SecurityConfig(false, null, dir.resolve("jwt-keys.json"))))) {
      WireClient connection = jwtOnly.connect("jwt-only");
      assertThat(connection.error("service.list", "{\"namespace\":\"prod\"}").code()).isEqualTo("UNAUTHENTICATED");
      assertThat(connection.bearer(JWT_APP).error("admin.service.get",
          "{\"namespace\":\"prod\",\"service\":\"orders\"}").code()).isEqualTo("FORBIDDEN");
      assertThat(connection.bearer(JWT_APP).error("service.list", "{\"namespace\":\"team-a\"}").code())
          .isEqualTo("FORBIDDEN");
      assertThat(connection.bearer(JWT_APP).call("service.list", "{\"namespace\":\"prod\"}")).contains("\"services\"");
    }
  }

  @Test
  void anExpiredSignedTokenInTheSetupIsRefusedSayingSo() {
    WireClient late = WireClient.connectWithToken(fixture.port(), "late", JWT_EXPIRED);
    assertThatThrownBy(() -> late.call("server.info", "{}"))
        .isInstanceOf(RejectedSetupException.class)
        .hasMessageContaining("bearer token is not valid: it expired at");
  }

  @Test
  void aConnectionClosesWhenItsSignedTokenExpires() {
    String shortLived = SignedTokens.hs256("short-lived", Map.of("prod", List.of("read", "write")),
        Instant.now().plusSeconds(2));
    WireClient client = WireClient.connectWithToken(fixture.port(), "short-lived", shortLived);
    assertThat(client.call("instance.register",
        "{\"namespace\":\"prod\",\"service\":\"expiring\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":1}}"))
        .contains("127.0.0.9#1#DEFAULT");

    await().atMost(Duration.ofSeconds(10)).until(client::isDisposed);
    await().atMost(Duration.ofSeconds(5)).until(() -> fixture.connect("ops").bearer(OPS)
        .call("service.query", "{\"namespace\":\"prod\",\"service\":\"expiring\"}", ServiceSnapshot.class)
        .instances().isEmpty());
  }

  @Test
  void aRequestTokenOverridesTheConnectionsForThatRequestOnly() {
    try (WireClient reader = WireClient.connectWithToken(fixture.port(), "reader", READER)) {
      String register = "{\"namespace\":\"prod\",\"service\":\"override\",\"instance\":{\"ip\":\"127.0.0.7\",\"port\":1}}";
      assertThat(reader.error("instance.register", register).code()).isEqualTo("FORBIDDEN");
      assertThat(reader.bearer(APP).call("instance.register", register)).contains("127.0.0.7#1#DEFAULT");
      assertThat(reader.error("instance.deregister", register).code()).isEqualTo("FORBIDDEN");
      // Registered over the reader's connection: it owns the instance, and releases it on close.
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> fixture.connect("ops").bearer(OPS)
        .call("service.query", "{\"namespace\":\"prod\",\"service\":\"override\"}", ServiceSnapshot.class)
        .instances().isEmpty());
  }

  @Test
  void theAuditTrailNamesThePrincipalEachChangeWasMadeFor() {
    WireClient ops = fixture.connect("ops").bearer(OPS);
    List<String> trace = new CopyOnWriteArrayList<>();
    double tracers = fixture.server().meters().get("registry.trace.subscribers").gauge().value();
    Disposable tracing = ops.stream("admin.trace", "{\"namespace\":\"prod\",\"service\":\"audited\"}")
        .subscribe(trace::add);
    await().atMost(Duration.ofSeconds(5)).until(() ->
        fixture.server().meters().get("registry.trace.subscribers").gauge().value() == tracers + 1);
    try (WireClient reader = WireClient.connectWithToken(fixture.port(), "reader", READER)) {
      String register = "{\"namespace\":\"prod\",\"service\":\"audited\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":1}}";
      assertThat(reader.bearer(APP).call("instance.register", register)).contains("127.0.0.9#1#DEFAULT");
      await().atMost(Duration.ofSeconds(5)).until(() -> trace.stream().anyMatch(t -> t.contains("\"REGISTER\"")));
      // The change was the app's (its request's token), over the reader's connection.
      assertThat(trace).filteredOn(t -> t.contains("\"REGISTER\"")).singleElement().asString()
          .contains("\"principal\":\"orders-app\"").contains("\"connection\":\"reader@");
    } finally {
      tracing.dispose();
    }
  }

  @Test
  void aHeartbeatWithoutPermissionIsDropped() {
    WireClient app = fixture.connect("beats").bearer(APP);
    app.call("instance.register",
        "{\"namespace\":\"prod\",\"service\":\"beating\",\"instance\":{\"ip\":\"127.0.0.8\",\"port\":1}}");
    double dropped = meter("registry_heartbeats_dropped_total");
    fixture.connect("stranger").fire("instance.heartbeat",
        "{\"namespace\":\"prod\",\"service\":\"beating\",\"instance\":{\"ip\":\"127.0.0.8\",\"port\":1}}");
    await().atMost(Duration.ofSeconds(5)).until(() -> meter("registry_heartbeats_dropped_total") == dropped + 1);
  }

  static double meter(String name) {
    return fixture.server().meters().scrape().lines().filter(line -> line.startsWith(name + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(line.indexOf(' ') + 1))).sum();
  }

  @Test
  void httpAsksForABearerTokenAndChecksTheNamespace() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + fixture.server().httpPort();
    HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/services?namespace=prod"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(none.body()).contains("UNAUTHENTICATED");

    assertThat(get(http, base + "/api/v1/services?namespace=prod", "Bearer nope").statusCode()).isEqualTo(401);
    assertThat(get(http, base + "/api/v1/services?namespace=prod", "Basic b3BzOm9wcw==").statusCode()).isEqualTo(401);
    HttpResponse<String> forbidden = get(http, base + "/api/v1/services?namespace=prod", "Bearer " + READER);
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).contains("FORBIDDEN", "read permission", "'prod'");
    assertThat(get(http, base + "/api/v1/services?namespace=prod", "Bearer " + APP).statusCode()).isEqualTo(200);
    assertThat(get(http, base + "/api/v1/services/team-a/DEFAULT/orders", "Bearer " + APP).statusCode())
        .isEqualTo(403);
    assertThat(get(http, base + "/api/v1/services/team-a/DEFAULT/none", "Bearer " + READER).statusCode())
        .isEqualTo(404);

    assertThat(get(http, base + "/metrics", null).statusCode()).isEqualTo(401);
    assertThat(get(http, base + "/metrics", "Bearer " + READER).statusCode()).isEqualTo(200);
    assertThat(get(http, base + "/health", null).statusCode()).isEqualTo(200);
    assertThat(get(http, base + "/ready", null).statusCode()).isEqualTo(200);
  }

  static HttpResponse<String> get(HttpClient http, String uri, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
