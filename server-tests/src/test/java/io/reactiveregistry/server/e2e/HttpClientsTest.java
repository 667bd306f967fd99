package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.request.RequestLayer;
import java.io.BufferedReader;
import java.io.InputStream;
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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Clients without RSocket: every route over {@code POST /api/v1/{route}}, instances that live by
 * their HTTP heartbeats, the watch as server-sent events, and the OpenAPI description checked
 * against what the server serves. Real sockets, {@code java.net.http}.
 */
class HttpClientsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String ORDERS_8080 =
      "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}";

  /** Heartbeats every 100 ms; unhealthy after 1 s without one, removed after 2 s. */
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withHeartbeat(new HeartbeatTimings(100, 1_000, 2_000)));
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<InputStream> streams = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (InputStream stream : streams) {
      stream.close();
    }
    fixture.close();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path);
  }

  private HttpResponse<String> post(String route, String json) throws Exception {
    return http.send(HttpRequest.newBuilder(uri("/api/v1/" + route)).timeout(WAIT)
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private ServiceSnapshot query(String service) {
    return JsonCodec.json().decode(fixture.connect("witness").call("service.query",
        "{\"service\":\"" + service + "\"}"), ServiceSnapshot.class);
  }

  @Test
  void registerHeartbeatAndDeregisterOverHttp() throws Exception {
    HttpResponse<String> registered = post("instance.register",
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080,\"metadata\":{\"lang\":\"go\"}}}");
    assertThat(registered.statusCode()).isEqualTo(200);
    assertThat(registered.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(registered.body()).contains("\"instanceId\":\"127.0.0.5#8080#DEFAULT\"")
        .contains("\"heartbeatIntervalMs\":100");
    assertThat(query("orders").instances()).extracting(InstanceBody::metadata).containsExactly(Map.of("lang", "go"));

    HttpResponse<String> beat = post("instance.heartbeat", ORDERS_8080);
    assertThat(beat.statusCode()).isEqualTo(200);
    assertThat(beat.body()).isEqualTo("{\"outcome\":\"REFRESHED\"}");

    // Reads and administration over the same door.
    assertThat(post("service.query", "{\"service\":\"orders\"}").body()).contains("\"ip\":\"127.0.0.5\"");
    HttpResponse<String> patched = post("admin.instance.patch",
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},\"weight\":3}");
    assertThat(patched.statusCode()).isEqualTo(200);
    assertThat(query("orders").instances().get(0).weight()).isEqualTo(3.0);
    // A batch over HTTP adds and updates: it does not replace what other HTTP callers registered.
    assertThat(post("instance.batch-register", "{\"service\":\"orders\",\"instances\":"
        + "[{\"ip\":\"127.0.0.5\",\"port\":8081},{\"ip\":\"127.0.0.5\",\"port\":8082}]}").body())
        .contains("127.0.0.5#8081#DEFAULT", "127.0.0.5#8082#DEFAULT");
    assertThat(query("orders").instances()).extracting(InstanceBody::port).containsExactlyInAnyOrder(8080, 8081, 8082);

    HttpResponse<String> removed = post("instance.deregister", ORDERS_8080);
    assertThat(removed.body()).startsWith("{\"removed\":true");
    HttpResponse<String> late = post("instance.heartbeat", ORDERS_8080);
    assertThat(late.statusCode()).isEqualTo(404);
    assertThat(late.body()).contains("\"code\":\"NOT_FOUND\"").contains("register it again");
  }

  @Test
  void anInstanceRegisteredOverHttpLivesByItsHeartbeats() throws Exception {
    post("instance.register", ORDERS_8080);
    post("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8081}}");
    // 8080 is kept alive for three seconds, past the two after which a silent instance is removed.
    long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    while (System.nanoTime() < until) {
      assertThat(post("instance.heartbeat", ORDERS_8080).statusCode()).isEqualTo(200);
      Thread.sleep(100);
    }
    // No connection owns them: the HTTP connections that registered them closing changes nothing;
    // 8081, silent, is gone; 8080 stays while it beats.
    assertThat(query("orders").instances()).extracting(InstanceBody::port).containsExactly(8080);
    await().atMost(WAIT).until(() -> query("orders").instances().isEmpty());
  }

  @Test
  void badRequestsGetTheContractsErrorWithItsStatusAndChangeNothing() throws Exception {
    assertThat(post("instance.register", "{bad")).satisfies(answer -> {
      assertThat(answer.statusCode()).isEqualTo(400);
      assertThat(answer.body()).startsWith("{\"code\":\"INVALID_PARAM\",\"message\":\"malformed JSON");
    });
    assertThat(post("instance.register", "{\"service\":\"orders\"}").body())
        .isEqualTo("{\"code\":\"INVALID_PARAM\",\"message\":\"instance is required\"}");
    assertThat(post("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":0}}")
        .body()).contains("instance.port");
    assertThat(post("instance.heartbeat", "{}").body()).contains("instance is required");
    HttpResponse<String> unknown = post("admin.service.get", "{\"service\":\"nosuch\"}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("\"code\":\"NOT_FOUND\"");
    HttpResponse<String> noRoute = post("instance.fly", "{}");
    assertThat(noRoute.statusCode()).isEqualTo(404);
    assertThat(noRoute.body()).contains("UNKNOWN_ROUTE");
    HttpResponse<String> streamRoute = post("service.subscribe", "{\"service\":\"orders\"}");
    assertThat(streamRoute.statusCode()).isEqualTo(404);
    HttpResponse<String> get = http.send(HttpRequest.newBuilder(uri("/api/v1/instance.register")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("Allow")).hasValue("POST");
    HttpResponse<String> tooLarge = post("instance.register", "{\"service\":\"orders\",\"x\":\""
        + "a".repeat(1 << 20) + "\"}");
    assertThat(tooLarge.statusCode()).isEqualTo(429);
    assertThat(tooLarge.body()).contains("LIMIT_EXCEEDED");
    assertThat(query("orders").instances()).isEmpty();
    // The server still answers.
    assertThat(post("instance.register", ORDERS_8080).statusCode()).isEqualTo(200);
  }

  @Test
  void theWatchDeliversWhatAnRSocketSubscriptionDeliversAndResumesFromLastEventId() throws Exception {
    WireClient rsocket = fixture.connect("rsocket-watcher");
    List<String> overRSocket = new CopyOnWriteArrayList<>();
    rsocket.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(overRSocket::add);
    List<Event> overHttp = new CopyOnWriteArrayList<>();
    watch("/api/v1/watch/public/DEFAULT_GROUP/orders", null, overHttp);
    await().atMost(WAIT).until(() -> overHttp.size() == 1 && overRSocket.size() == 1);

    post("instance.register", ORDERS_8080);
    post("admin.instance.patch", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},"
        + "\"weight\":2}");
    post("instance.deregister", ORDERS_8080);
    await().atMost(WAIT).until(() -> overHttp.size() == 4 && overRSocket.size() == 4);
    assertThat(overHttp).extracting(Event::data).containsExactlyElementsOf(overRSocket);
    assertThat(overHttp).extracting(Event::type).containsExactly("SNAPSHOT", "SNAPSHOT", "UPSERT", "REMOVE");
    String node = new ObjectMapper().readTree(overRSocket.get(0)).get("node").asText();
    for (Event event : overHttp) {
      assertThat(event.id()).isEqualTo(node + ":" + new ObjectMapper().readTree(event.data()).get("revision").asLong());
    }

    // A client that reconnects with the id of the second event gets what it missed, resumed.
    List<Event> resumed = new CopyOnWriteArrayList<>();
    watch("/api/v1/watch/public/DEFAULT_GROUP/orders", overHttp.get(1).id(), resumed);
    await().atMost(WAIT).until(() -> resumed.size() == 3);
    assertThat(resumed).extracting(Event::type).containsExactly("RESUMED", "UPSERT", "REMOVE");
    assertThat(resumed.subList(1, 3)).extracting(Event::data)
        .containsExactlyElementsOf(overRSocket.subList(2, 4));

    HttpResponse<String> badId = http.send(HttpRequest.newBuilder(uri("/api/v1/watch/public/DEFAULT_GROUP/orders"))
        .header("Last-Event-ID", "yesterday").GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(badId.statusCode()).isEqualTo(400);
    assertThat(badId.body()).contains("Last-Event-ID");
  }

  @Test
  void aWatchThatAsksToCoalesceGetsABurstAsBatches() throws Exception {
    List<Event> events = new CopyOnWriteArrayList<>();
    watch("/api/v1/watch/public/DEFAULT_GROUP/orders?coalesce=true", null, events);
    await().atMost(WAIT).until(() -> events.size() == 1);
    String batch = "{\"service\":\"orders\",\"instances\":[" + IntStream.range(0, 50)
        .mapToObj(i -> "{\"ip\":\"127.0.0.5\",\"port\":" + (9000 + i) + "}")
        .collect(Collectors.joining(",")) + "]}";
    for (int round = 0; round < 20; round++) { // changes faster than the 50 ms between two frames
      post("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":"
          + (8000 + round) + "}}");
    }
    post("instance.batch-register", batch);
    await().atMost(WAIT).until(() -> foldedPorts(events).size() == 70);
    assertThat(events).extracting(Event::type).contains("BATCH");
    assertThat(events.size()).isLessThan(70);
    String node = new ObjectMapper().readTree(events.get(0).data()).get("node").asText();
    assertThat(events).allSatisfy(event -> assertThat(event.id()).isEqualTo(node + ":"
        + new ObjectMapper().readTree(event.data()).get("revision").asLong()));
  }

  /** The ports of the view that the events build, applied in order (a BATCH's events in turn). */
  private static Set<Integer> foldedPorts(List<Event> events) throws Exception {
    Set<Integer> ports = new TreeSet<>();
    List<JsonNode> all = new ArrayList<>();
    for (Event event : events) {
      JsonNode json = new ObjectMapper().readTree(event.data());
      if (json.has("events")) {
        json.get("events").forEach(all::add);
      } else {
        all.add(json);
      }
    }
    for (JsonNode event : all) {
      switch (event.get("type").asText()) {
        case "SNAPSHOT" -> {
          ports.clear();
          event.get("instances").forEach(instance -> ports.add(instance.get("port").asInt()));
        }
        case "UPSERT" -> ports.add(event.get("instance").get("port").asInt());
        case "REMOVE" -> ports.remove(Integer.parseInt(event.get("instanceId").asText().split("#")[1]));
        default -> { }
      }
    }
    return ports;
  }

  @Test
  void theAuditTrailStreamsOverHttpToo() throws Exception {
    List<Event> trail = new CopyOnWriteArrayList<>();
    watch("/api/v1/trace?service=orders", null, trail);
    // The stream starts with what happens from its subscription on: change orders until it shows.
    long until = System.nanoTime() + WAIT.toNanos();
    while (trail.isEmpty() && System.nanoTime() < until) {
      post("instance.register", ORDERS_8080);
      post("instance.deregister", ORDERS_8080);
      Thread.sleep(50);
    }
    assertThat(trail).isNotEmpty().allSatisfy(event -> {
      assertThat(event.type()).isEqualTo("trace");
      assertThat(event.data()).contains("\"service\":\"orders\"").containsPattern("\"cause\":\"(REGISTER|DEREGISTER)\"");
    });
  }

  private record Event(String id, String type, String data) {}

  /** Reads a watch's server-sent events into {@code events} as they come. */
  private void watch(String path, String lastEventId, List<Event> events) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).header("Accept", "text/event-stream").GET();
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("text/event-stream"));
    streams.add(response.body());
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
        String id = null;
        String type = null;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.startsWith("id: ")) {
            id = line.substring(4);
          } else if (line.startsWith("event: ")) {
            type = line.substring(7);
          } else if (line.startsWith("data: ")) {
            events.add(new Event(id, type, line.substring(6)));
          }
        }
      } catch (Exception ignored) {
        // the stream was closed
      }
    }, "sse-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * docs/openapi.json describes what the server serves: each path and method it lists is served
   * (never answered "no such path" or "use another method"), and every route callable over HTTP
   * is listed.
   */
  /** Whether an operation of the description answers server-sent events. */
  private static boolean streams(JsonNode operation) {
    JsonNode ok = operation.path("responses").path("200").path("content");
    return ok.has("text/event-stream");
  }

  @Test
  void theOpenApiDescriptionMatchesTheServedEndpoints() throws Exception {
    JsonNode spec = new ObjectMapper().readTree(Files.readString(Path.of("../docs/openapi.json")));
    List<String> described = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> paths = spec.get("paths").fields(); paths.hasNext(); ) {
      Map.Entry<String, JsonNode> path = paths.next();
      for (Iterator<String> methods = path.getValue().fieldNames(); methods.hasNext(); ) {
        String method = methods.next().toUpperCase();
        String concrete = path.getKey().replace("{namespace}", "public").replace("{group}", "DEFAULT_GROUP")
            .replace("{service}", "orders");
        described.add(method + " " + path.getKey());
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(concrete)).timeout(WAIT);
        HttpResponse<String> answer = method.equals("POST")
            ? http.send(request.POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString())
            : streams(path.getValue().get(method.toLowerCase())) ? null // its body never ends
            : http.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
        if (answer != null) {
          assertThat(answer.body()).as(method + " " + concrete).doesNotContain("\"code\":\"UNKNOWN_ROUTE\"");
        }
      }
    }
    for (Route route : Route.values()) {
      if (RequestLayer.callableOverHttp(route)) {
        assertThat(described).contains("POST /api/v1/" + route.routeName());
      } else {
        assertThat(described).doesNotContain("POST /api/v1/" + route.routeName());
      }
    }
    assertThat(described).contains("GET /api/v1/watch/{namespace}/{group}/{service}", "GET /api/v1/trace",
        "GET /health");
  }
}
