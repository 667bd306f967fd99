package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.NamespaceList;
import io.reactiveregistry.protocol.message.NamespaceSummary;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.security.SignedTokens;
import io.rsocket.exceptions.RejectedSetupException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * Tokens over the wire: a token refused in the SETUP, signed tokens, a request's own token over its
 * connection's, the principal in the audit trail. Every route against every caller and door is
 * {@link PermissionMatrixTest}; the guessing limit is {@link LockOutTest}.
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

  static final Map<String, String> GRANTS = Map.of(
      OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}",
      APP, "{\"prod\":[\"read\",\"write\"]}",
      READER, "{\"team-*\":[\"read\"]}");

  @BeforeAll
  static void start() throws Exception {
    Path file = dir.resolve("tokens.json");
    Files.writeString(file, TokenFile.of(GRANTS));
    Path keys = dir.resolve("jwt-keys.json");
    Files.writeString(keys, SignedTokens.secretJwkSet());
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, file, keys,
        1_000_000, Duration.ofMinutes(1))));
  }

  @AfterAll
  static void stop() {
    fixture.close();
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
  void eachCallerListsOnlyTheNamespacesItMayRead() {
    WireClient ops = fixture.connect("ops-namespaces").bearer(OPS);
    for (String namespace : List.of("prod", "team-a", "team-b", "staging")) {
      ops.call("admin.service.create", "{\"namespace\":\"" + namespace + "\",\"service\":\"listed\"}");
    }
    assertThat(fixture.connect("app-namespaces").bearer(APP).call("namespace.list", "{}", NamespaceList.class)
        .namespaces()).extracting(NamespaceSummary::namespace).containsExactly("prod");
    assertThat(fixture.connect("reader-namespaces").bearer(READER).call("namespace.list", "{}", NamespaceList.class)
        .namespaces()).extracting(NamespaceSummary::namespace).containsExactly("team-a", "team-b");
    assertThat(ops.call("namespace.list", "{}", NamespaceList.class).namespaces())
        .extracting(NamespaceSummary::namespace).contains("prod", "staging", "team-a", "team-b");
    assertThat(fixture.connect("nobody-namespaces").error("namespace.list", "{}").code()).isEqualTo("UNAUTHENTICATED");
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
