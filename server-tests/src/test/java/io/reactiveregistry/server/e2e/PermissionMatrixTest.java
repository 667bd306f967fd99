package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.security.SignedTokens;
import io.rsocket.exceptions.RejectedSetupException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every route, asked by every kind of caller, through every door and every way a token travels.
 * What each route needs is written out here, from the contract (not read from the server's own
 * table, so that a change to that table shows up here). A request counts as served when it is
 * answered (a stream: when its first element arrives; a heartbeat: when the instance it names
 * exists afterwards), and as refused when it is answered {@code UNAUTHENTICATED} or
 * {@code FORBIDDEN}; a refusal changes nothing (the registry's revision stays where it was).
 */
class PermissionMatrixTest {
  static final String OPS = TokensEndToEndTest.OPS;
  static final String APP = TokensEndToEndTest.APP;
  static final String READER = TokensEndToEndTest.READER;
  static final Duration WAIT = Duration.ofSeconds(5);

  @TempDir
  static Path dir;
  static ServerFixture fixture;
  /** The operator's connection, which makes the changes the audit trail's streams wait for. */
  static WireClient operator;
  static final HttpClient http = HttpClient.newHttpClient();
  /** Each heartbeat names an instance of its own: served, it creates it. */
  static final AtomicInteger ports = new AtomicInteger(20_000);

  @BeforeAll
  static void start() throws Exception {
    Path file = dir.resolve("tokens.json");
    // The operator may do everything everywhere, the app read and write in prod, the reader read in team-*.
    Files.writeString(file, TokenFile.of(TokensEndToEndTest.GRANTS));
    Path keys = dir.resolve("jwt-keys.json");
    Files.writeString(keys, SignedTokens.secretJwkSet());
    // The matrix presents many tokens that are not valid from loopback: the guessing limit is lifted
    // here (LockOutTest checks it).
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, file, keys,
        1_000_000, Duration.ofMinutes(1), null)));
    operator = fixture.connect("operator").bearer(OPS);
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  /** Who asks. */
  enum Caller {
    NOBODY(null), BAD_TOKEN("not-a-token-of-this-server"), EXPIRED_JWT(TokensEndToEndTest.JWT_EXPIRED),
    READER_OF_ANOTHER_NAMESPACE(READER), WRITER(APP), ADMIN(OPS);

    final String token;

    Caller(String token) {
      this.token = token;
    }

    /** The code it is refused with for {@code permission} (null: any principal) in {@code namespace}; null: served. */
    String refusal(String permission, String namespace) {
      return switch (this) {
        case NOBODY, BAD_TOKEN, EXPIRED_JWT -> "UNAUTHENTICATED";
        case READER_OF_ANOTHER_NAMESPACE -> permission == null
            || permission.equals("read") && namespace.startsWith("team-") ? null : "FORBIDDEN";
        case WRITER -> permission == null || !permission.startsWith("admin") && namespace.equals("prod")
            ? null : "FORBIDDEN";
        case ADMIN -> null;
      };
    }
  }

  /** How a request reaches the server, and where its token travels. */
  enum Door {
    TCP_SETUP_TOKEN, TCP_REQUEST_TOKEN, WEBSOCKET_SETUP_TOKEN, WEBSOCKET_REQUEST_TOKEN, HTTP
  }

  /**
   * What each route needs, from the contract: read, write, admin in the request's namespace,
   * "admin everywhere" (admin on every namespace), or null (any principal); and a body, with the
   * namespace in {@code %1$s} and, for heartbeats, a port in {@code %2$d}.
   */
  record Row(String permission, String body) {}

  static final Map<Route, Row> ROWS = new EnumMap<>(Map.ofEntries(
      Map.entry(Route.INSTANCE_REGISTER, new Row("write",
          "{\"namespace\":\"%1$s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}")),
      Map.entry(Route.INSTANCE_HEARTBEAT, new Row("write",
          "{\"namespace\":\"%1$s\",\"service\":\"beats\",\"instance\":{\"ip\":\"127.0.0.8\",\"port\":%2$d}}")),
      Map.entry(Route.INSTANCE_DEREGISTER, new Row("write",
          "{\"namespace\":\"%1$s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":1}}")),
      Map.entry(Route.INSTANCE_BATCH_REGISTER, new Row("write",
          "{\"namespace\":\"%1$s\",\"service\":\"batch\",\"instances\":[{\"ip\":\"127.0.0.6\",\"port\":8080}]}")),
      Map.entry(Route.SERVICE_QUERY, new Row("read", "{\"namespace\":\"%1$s\",\"service\":\"orders\"}")),
      Map.entry(Route.SERVICE_SUBSCRIBE, new Row("read", "{\"namespace\":\"%1$s\",\"service\":\"orders\"}")),
      Map.entry(Route.SERVICE_LIST, new Row("read", "{\"namespace\":\"%1$s\"}")),
      Map.entry(Route.CATALOG_SUBSCRIBE, new Row("read", "{\"namespace\":\"%1$s\"}")),
      Map.entry(Route.ADMIN_SERVICE_CREATE, new Row("admin", "{\"namespace\":\"%1$s\",\"service\":\"defined\"}")),
      Map.entry(Route.ADMIN_SERVICE_UPDATE, new Row("admin",
          "{\"namespace\":\"%1$s\",\"service\":\"defined\",\"protectThreshold\":0.1}")),
      Map.entry(Route.ADMIN_SERVICE_DELETE, new Row("admin", "{\"namespace\":\"%1$s\",\"service\":\"never-made\"}")),
      Map.entry(Route.ADMIN_SERVICE_GET, new Row("admin", "{\"namespace\":\"%1$s\",\"service\":\"defined\"}")),
      Map.entry(Route.ADMIN_INSTANCE_UPDATE, new Row("admin",
          "{\"namespace\":\"%1$s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},\"weight\":2}")),
      Map.entry(Route.ADMIN_INSTANCE_PATCH, new Row("admin",
          "{\"namespace\":\"%1$s\",\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},\"weight\":3}")),
      Map.entry(Route.ADMIN_SERVICE_INSTANCES, new Row("admin", "{\"namespace\":\"%1$s\",\"service\":\"orders\"}")),
      Map.entry(Route.ADMIN_CONNECTIONS, new Row("admin everywhere", "{}")),
      Map.entry(Route.ADMIN_TRACE, new Row("admin", "{\"namespace\":\"%1$s\"}")),
      Map.entry(Route.ADMIN_TRACE_QUERY, new Row("admin", "{\"namespace\":\"%1$s\"}")),
      Map.entry(Route.ADMIN_SERVICE_SUBSCRIBERS, new Row("admin", "{\"namespace\":\"%1$s\",\"service\":\"orders\"}")),
      // In memory here: served past the permission as NOT_FOUND (nothing durable to copy).
      Map.entry(Route.ADMIN_BACKUP, new Row("admin everywhere", "{}")),
      // Not a cluster here: served past the permission as NOT_FOUND (no members to change).
      Map.entry(Route.ADMIN_MEMBERS_ADD, new Row("admin everywhere", "{\"member\":\"n9=127.0.0.1:7399/7499\"}")),
      Map.entry(Route.ADMIN_MEMBERS_REMOVE, new Row("admin everywhere", "{\"node\":\"n9\"}")),
      Map.entry(Route.ADMIN_MEMBERS_REPLACE, new Row("admin everywhere",
          "{\"node\":\"n8\",\"member\":\"n9=127.0.0.1:7399/7499\"}")),
      Map.entry(Route.SERVER_INFO, new Row(null, "{}")),
      // Any principal; each sees the namespaces it may read (TokensEndToEndTest checks which).
      Map.entry(Route.NAMESPACE_LIST, new Row(null, "{}")),
      Map.entry(Route.CLUSTER_REPLICATE, new Row("admin everywhere", "{\"node\":\"n9\"}"))));

  @Test
  void everyRouteOfTheContractIsInTheMatrix() {
    assertThat(ROWS.keySet()).as("a route added to the contract needs its row here")
        .isEqualTo(EnumSet.allOf(Route.class));
  }

  static Stream<Arguments> doorsAndCallers() {
    List<Arguments> all = new ArrayList<>();
    for (Door door : Door.values()) {
      for (Caller caller : Caller.values()) {
        all.add(Arguments.of(door, caller));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{1} through {0}")
  @MethodSource("doorsAndCallers")
  void everyRouteAnswersEachCallerAsItsGrantsSayThroughEveryDoor(Door door, Caller caller) throws Exception {
    SoftAssertions softly = new SoftAssertions();
    try (Asker asker = new Asker(door, caller)) {
      for (String namespace : List.of("prod", "team-a")) {
        for (Map.Entry<Route, Row> entry : ROWS.entrySet()) {
          Route route = entry.getKey();
          Row row = entry.getValue();
          String what = caller + " asks " + route + " in " + namespace + " through " + door;
          long before = revision();
          String outcome = asker.ask(route, row.body().formatted(namespace, ports.incrementAndGet()), namespace);
          String namespaceOfGrant = row.permission() != null && row.permission().endsWith("everywhere") ? "*"
              : namespace;
          String expected = door == Door.HTTP && route == Route.CLUSTER_REPLICATE ? "NOT_SERVED_OVER_HTTP"
              : caller.refusal(row.permission(), namespaceOfGrant);
          if (expected != null && route == Route.INSTANCE_HEARTBEAT && door != Door.HTTP
              && !outcome.startsWith("UNAUTHENTICATED: ")) { // not a refused SETUP: a heartbeat no one answers
            expected = FIRE_AND_FORGET_REFUSED;
          }
          if (expected == null) {
            softly.assertThat(outcome).as(what).isEqualTo("SERVED");
          } else {
            softly.assertThat(outcome).as(what).startsWith(expected);
            softly.assertThat(revision()).as(what + ": nothing changed").isEqualTo(before);
            if (expected.equals("FORBIDDEN") && outcome.startsWith("FORBIDDEN:")) { // names permission and namespace
              String permission = row.permission().split(" ")[0];
              softly.assertThat(outcome).as(what).contains(permission + " permission",
                  namespaceOfGrant.equals("*") ? "every namespace" : "'" + namespace + "'");
            }
          }
        }
      }
      asker.checkStillOpen(softly);
    }
    softly.assertAll();
  }

  static long revision() {
    return fixture.server().runtime().read(RegistryReads::revision);
  }

  /** A heartbeat over RSocket cannot be answered: a refused one is dropped and counted. */
  static final String FIRE_AND_FORGET_REFUSED = "REFUSED (fire-and-forget: dropped and counted)";

  /** One caller's connection through one door, asking route after route. */
  static final class Asker implements AutoCloseable {
    private final Door door;
    private final Caller caller;
    /** The RSocket connection, or null over HTTP; its SETUP refused: {@link #setupRefusal}. */
    private WireClient connection;
    private String setupRefusal;
    /** Streams opened, kept open to the end (a cancelled stream is a frame more in flight). */
    private final reactor.core.Disposable.Composite streams = reactor.core.Disposables.composite();

    /** The connections open on the server before this one: closing waits until it is back to them. */
    private final int openBefore = fixture.server().openConnections();

    Asker(Door door, Caller caller) {
      this.door = door;
      this.caller = caller;
      int tcp = fixture.port();
      int webSocket = fixture.server().webSocketPort();
      switch (door) {
        case TCP_SETUP_TOKEN -> connection = WireClient.connectWithToken(tcp, "matrix", caller.token);
        case TCP_REQUEST_TOKEN -> connection = caller.token == null ? WireClient.connect(tcp, "matrix")
            : WireClient.connect(tcp, "matrix").bearer(caller.token);
        case WEBSOCKET_SETUP_TOKEN -> connection = WireClient.connectWebSocketWithToken(webSocket, "matrix",
            caller.token);
        case WEBSOCKET_REQUEST_TOKEN -> connection = caller.token == null ? WireClient.connectWebSocket(webSocket,
            "matrix") : WireClient.connectWebSocket(webSocket, "matrix").bearer(caller.token);
        case HTTP -> connection = null;
      }
    }

    String ask(Route route, String body, String namespace) throws Exception {
      if (door == Door.HTTP) {
        return askHttp(route, body, namespace);
      }
      if (setupRefusal != null) {
        return setupRefusal;
      }
      try {
        return switch (route.interaction()) {
          case REQUEST_RESPONSE -> {
            connection.call(route.routeName(), body);
            yield "SERVED";
          }
          case REQUEST_STREAM -> route == Route.ADMIN_TRACE ? firstTraceEvent(body, namespace)
              : firstElement(open(connection.stream(route.routeName(), body)));
          case FIRE_AND_FORGET -> {
            long dropped = fixture.server().droppedHeartbeats();
            connection.fire(route.routeName(), body);
            // Frames of a connection are handled in order: once this is answered, the heartbeat was applied.
            connection.bearer(OPS).call("server.info", "{}");
            yield instanceExists(namespace, body) ? "SERVED"
                : fixture.server().droppedHeartbeats() == dropped + 1 ? FIRE_AND_FORGET_REFUSED : "NOT APPLIED";
          }
          case REQUEST_CHANNEL -> throw new AssertionError("no route is request-channel");
        };
      } catch (RejectedSetupException e) { // the SETUP's token was refused: so is everything on it
        setupRefusal = "UNAUTHENTICATED: " + e.getMessage();
        return setupRefusal;
      } catch (ExecutionException e) {
        return refusalOf(e.getCause());
      } catch (RuntimeException e) {
        return refusalOf(e);
      }
    }

    /** The stream's first element; the stream stays open until the asker closes. */
    private CompletableFuture<String> open(reactor.core.publisher.Flux<String> stream) {
      CompletableFuture<String> first = new CompletableFuture<>();
      streams.add(stream.subscribe(first::complete, first::completeExceptionally, () -> first.complete(null)));
      return first;
    }

    private static String refusalOf(Throwable e) {
      if (e instanceof RejectedSetupException) {
        return "UNAUTHENTICATED: " + e.getMessage();
      }
      ErrorBody error = WireClient.errorOf(e);
      return error.code().equals("UNAUTHENTICATED") || error.code().equals("FORBIDDEN")
          ? error.code() + ": " + error.message() : "SERVED"; // refused for another reason: past the permission
    }

    /** SERVED once the stream's first element arrives. */
    private static String firstElement(CompletableFuture<?> first) throws Exception {
      first.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      return "SERVED";
    }

    /**
     * SERVED once the audit trail's first event arrives. Its first event is the next change: once
     * the server counted the stream as opened (not refused), changes are made until one arrives
     * (the first may precede the stream's subscription to the trail). A stream the client's RSocket
     * cancelled right after it opened (seen about once in twenty opens here, a CANCEL frame nobody
     * asked for; see the closing note of issue 34) is opened again, at most twice.
     */
    private String firstTraceEvent(String body, String namespace) throws Exception {
      for (int attempt = 1; ; attempt++) {
        long opened = tracesOpened();
        CompletableFuture<String> first = open(connection.stream(Route.ADMIN_TRACE.routeName(), body));
        await().atMost(WAIT).until(() -> first.isDone() || tracesOpened() > opened);
        try {
          await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!first.isDone()) {
              poke(namespace);
            }
            return first.isDone();
          });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          if (attempt == 3) {
            throw e;
          }
          continue;
        }
        return firstElement(first);
      }
    }

    /** admin.trace streams the server opened (not refused). */
    private static long tracesOpened() {
      // The timer exists from the route's first request on.
      io.micrometer.core.instrument.Timer opened = fixture.server().meters().find("registry.requests")
          .tag("route", "admin.trace").tag("outcome", "ok").timer();
      return opened == null ? 0 : opened.count();
    }

    /**
     * Changes in {@code namespace}, made by the operator: an instance registered and deregistered,
     * both answered, so that nothing is left to change after it returns.
     */
    private static void poke(String namespace) {
      String instance = "{\"namespace\":\"" + namespace + "\",\"service\":\"poked\",\"instance\":"
          + "{\"ip\":\"127.0.0.4\",\"port\":" + ports.incrementAndGet() + "}}";
      operator.call("instance.register", instance);
      operator.call("instance.deregister", instance);
    }

    private static boolean instanceExists(String namespace, String heartbeat) {
      String port = heartbeat.replaceAll(".*\"port\":(\\d+).*", "$1");
      try {
        return operator.call("service.query", "{\"namespace\":\"" + namespace + "\",\"service\":\"beats\"}")
            .contains("\"port\":" + port + ",");
      } catch (RuntimeException e) {
        return false; // the service does not exist
      }
    }

    private String askHttp(Route route, String body, String namespace) throws Exception {
      HttpRequest.Builder request;
      boolean stream = route.interaction() == Interaction.REQUEST_STREAM;
      if (route == Route.SERVICE_SUBSCRIBE) {
        request = HttpRequest.newBuilder(uri("/api/v1/watch/" + namespace + "/DEFAULT_GROUP/orders")).GET();
      } else if (route == Route.ADMIN_TRACE) {
        request = HttpRequest.newBuilder(uri("/api/v1/trace?namespace=" + namespace)).GET();
      } else if (route == Route.CATALOG_SUBSCRIBE) {
        request = HttpRequest.newBuilder(uri("/api/v1/catalog/" + namespace)).GET();
      } else if (route == Route.ADMIN_BACKUP) {
        request = HttpRequest.newBuilder(uri("/api/v1/backup")).GET();
      } else {
        request = HttpRequest.newBuilder(uri("/api/v1/" + route.routeName()))
            .POST(HttpRequest.BodyPublishers.ofString(body));
      }
      if (caller.token != null) {
        request.header("Authorization", "Bearer " + caller.token);
      }
      HttpResponse<java.io.InputStream> answer = http.send(request.timeout(WAIT).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(answer.body(), StandardCharsets.UTF_8))) {
        if (answer.statusCode() == 200) {
          if (!stream) {
            reader.lines().count();
            return route == Route.INSTANCE_HEARTBEAT && !instanceExists(namespace, body) ? "NOT APPLIED" : "SERVED";
          }
          // The audit trail's first event is the next change: made until one arrives (the first may
          // precede the stream's subscription to the trail).
          CompletableFuture<Void> read = new CompletableFuture<>();
          CompletableFuture<Void> poking = CompletableFuture.completedFuture(null);
          if (route == Route.ADMIN_TRACE) {
            poking = CompletableFuture.runAsync(() -> {
              while (!read.isDone()) {
                poke(namespace);
                try {
                  read.get(100, TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                  // not yet: poke again
                }
              }
            });
          }
          try {
            String line;
            while ((line = reader.readLine()) != null) {
              if (line.startsWith("data:")) {
                return "SERVED";
              }
            }
            return "STREAM ENDED WITHOUT AN EVENT";
          } finally {
            read.complete(null);
            poking.get(WAIT.toMillis(), TimeUnit.MILLISECONDS); // its last change made before the next row
          }
        }
        ErrorBody error = JsonCodec.json().decode(reader.lines().reduce("", String::concat), ErrorBody.class);
        int status = switch (error.code()) {
          case "UNAUTHENTICATED" -> 401;
          case "FORBIDDEN" -> 403;
          case "UNKNOWN_ROUTE" -> answer.statusCode() == 405 ? 405 : 404;
          default -> answer.statusCode();
        };
        assertThat(answer.statusCode()).as("the status of " + error.code()).isEqualTo(status);
        return switch (error.code()) {
          case "UNAUTHENTICATED", "FORBIDDEN" -> error.code() + ": " + error.message();
          case "UNKNOWN_ROUTE" -> "NOT_SERVED_OVER_HTTP: " + error.message();
          default -> "SERVED";
        };
      }
    }

    private static URI uri(String path) {
      return URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path);
    }

    void checkStillOpen(SoftAssertions softly) {
      if (connection != null && setupRefusal == null) {
        softly.assertThat(connection.isDisposed()).as("the connection stays open after refusals").isFalse();
        softly.assertThat(connection.bearer(OPS).call("server.info", "{}")).contains("\"protocol\":1");
      }
    }

    @Override
    public void close() {
      streams.dispose();
      if (connection != null) {
        connection.close();
        // The server releases what the connection owned once it sees the close: the next caller's
        // "nothing changed" must not see this caller's instances go.
        await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
            .until(() -> fixture.server().openConnections() <= openBefore);
      }
    }
  }
}
