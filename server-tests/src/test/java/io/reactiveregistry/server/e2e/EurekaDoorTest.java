package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.security.SecurityConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * The Eureka door over a real socket, as any Eureka REST client uses it: register, renew, fetch,
 * delta, status, cancel, in JSON and XML; what it refuses, with Eureka's status codes and nothing
 * changed; leases expiring on virtual time; tokens as Basic's password. Eureka's own client
 * libraries drive it in the {@code interop/eureka} module.
 */
class EurekaDoorTest {
  static final Duration WAIT = Duration.ofSeconds(10);
  final HttpClient http = HttpClient.newHttpClient();
  final ManualClock clock = new ManualClock(1_000_000);
  ServerFixture fixture;

  @AfterEach
  void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  static String instanceJson(String app, String id, String ip, int port, int renewal, int duration) {
    return "{\"instance\":{\"instanceId\":\"" + id + "\",\"hostName\":\"" + id + ".local\",\"app\":\"" + app
        + "\",\"ipAddr\":\"" + ip + "\",\"status\":\"UP\",\"overriddenStatus\":\"UNKNOWN\",\"port\":{\"$\":" + port
        + ",\"@enabled\":\"true\"},\"securePort\":{\"$\":443,\"@enabled\":\"false\"},\"countryId\":1,"
        + "\"dataCenterInfo\":{\"@class\":\"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo\",\"name\":\"MyOwn\"},"
        + "\"leaseInfo\":{\"renewalIntervalInSecs\":" + renewal + ",\"durationInSecs\":" + duration + "},"
        + "\"metadata\":{\"zone\":\"a\"},\"vipAddress\":\"" + app.toLowerCase() + "\",\"lastDirtyTimestamp\":\"17\"}}";
  }

  static String instanceXml(String app, String id, String ip, int port) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><instance><instanceId>" + id + "</instanceId><hostName>" + id
        + ".local</hostName><app>" + app + "</app><ipAddr>" + ip + "</ipAddr><status>UP</status>"
        + "<port enabled=\"true\">" + port + "</port><securePort enabled=\"false\">443</securePort>"
        + "<dataCenterInfo class=\"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo\"><name>MyOwn</name>"
        + "</dataCenterInfo><leaseInfo><renewalIntervalInSecs>30</renewalIntervalInSecs><durationInSecs>90"
        + "</durationInSecs></leaseInfo><metadata><lang>go</lang></metadata><vipAddress>" + app.toLowerCase()
        + "</vipAddress></instance>";
  }

  @Test
  void anInstanceRegisteredInJsonIsRenewedFetchedOverriddenAndCancelledWithEurekasStatusCodes() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    assertThat(send("POST", "/eureka/apps/ORDERS", instanceJson("ORDERS", "orders-1", "127.0.0.5", 8080, 5, 15),
        "application/json").statusCode()).isEqualTo(204);
    assertThat(send("PUT", "/eureka/apps/ORDERS/orders-1?status=UP&lastDirtyTimestamp=17", null, null).statusCode())
        .isEqualTo(200);
    // Unknown here: 404, so that the client registers again.
    assertThat(send("PUT", "/eureka/apps/ORDERS/orders-2?status=UP", null, null).statusCode()).isEqualTo(404);

    String apps = get("/eureka/apps", "application/json").body();
    assertThat(apps).contains("\"apps__hashcode\":\"UP_1_\"", "\"instanceId\":\"orders-1\"", "\"app\":\"ORDERS\"",
        "\"hostName\":\"orders-1.local\"", "\"ipAddr\":\"127.0.0.5\"", "\"$\":8080", "\"zone\":\"a\"",
        "\"renewalIntervalInSecs\":5", "\"durationInSecs\":15", "\"vipAddress\":\"orders\"");
    assertThat(apps).doesNotContain("eureka.", "preserved.");
    // The same instance in the registry's own view: service "orders", the client's fields kept.
    String view = get("/api/v1/services/public/DEFAULT_GROUP/orders", null).body();
    assertThat(view).contains("\"ip\":\"127.0.0.5\"", "\"port\":8080", "\"eureka.instanceId\":\"orders-1\"",
        "\"preserved.heart.beat.interval\":\"5000\"", "\"enabled\":true");
    assertThat(get("/eureka/v2/apps/orders/orders-1", "application/json").body())
        .startsWith("{\"instance\":{\"instanceId\":\"orders-1\"");

    // An overridden OUT_OF_SERVICE is the operator's enabled:false; removing it restores UP.
    assertThat(send("PUT", "/eureka/apps/ORDERS/orders-1/status?value=OUT_OF_SERVICE", null, null).statusCode())
        .isEqualTo(200);
    assertThat(get("/eureka/apps/ORDERS/orders-1", "application/json").body())
        .contains("\"status\":\"OUT_OF_SERVICE\"", "\"overriddenStatus\":\"OUT_OF_SERVICE\"");
    assertThat(get("/api/v1/services/public/DEFAULT_GROUP/orders", null).body()).contains("\"enabled\":false");
    assertThat(get("/eureka/apps", "application/json").body()).contains("\"apps__hashcode\":\"OUT_OF_SERVICE_1_\"");
    assertThat(send("DELETE", "/eureka/apps/ORDERS/orders-1/status", null, null).statusCode()).isEqualTo(200);
    assertThat(get("/eureka/apps/ORDERS/orders-1", "application/json").body())
        .contains("\"status\":\"UP\"", "\"overriddenStatus\":\"UNKNOWN\"");

    assertThat(send("PUT", "/eureka/apps/ORDERS/orders-1/metadata?version=2", null, null).statusCode())
        .isEqualTo(200);
    assertThat(get("/eureka/instances/orders-1", "application/json").body()).contains("\"version\":\"2\"",
        "\"zone\":\"a\"");

    assertThat(send("DELETE", "/eureka/apps/ORDERS/orders-1", null, null).statusCode()).isEqualTo(200);
    assertThat(send("DELETE", "/eureka/apps/ORDERS/orders-1", null, null).statusCode()).isEqualTo(404);
    assertThat(get("/eureka/apps/ORDERS", "application/json").statusCode()).isEqualTo(404);
  }

  /**
   * A full fetch asked for gzipped is the plain document, compressed: after changes too, when
   * only the changed application is compressed again and spliced between the others (JSON and
   * XML, read back with the JDK's GZIPInputStream as Eureka's client reads it).
   */
  @Test
  void aGzippedFullFetchIsThePlainDocumentAfterEveryChange() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    for (int i = 0; i < 40; i++) {
      register(i % 2 == 0 ? "ORDERS" : "BILLING", "app-" + i, "127.0.1." + (i + 1), 8080);
    }
    for (String accept : List.of("application/json", "application/xml")) {
      assertThat(gunzip(fetchGzipped(accept))).isEqualTo(get("/eureka/apps", accept).body());
    }
    register("ORDERS", "app-40", "127.0.1.41", 8080); // one application changes, the other not
    assertThat(send("DELETE", "/eureka/apps/BILLING/app-1", null, null).statusCode()).isEqualTo(200);
    register("PAYMENTS", "app-41", "127.0.1.42", 8080); // an application appears
    for (String accept : List.of("application/json", "application/xml")) {
      String plain = get("/eureka/apps", accept).body();
      assertThat(plain).contains("app-40", "app-41").doesNotContain("app-1<", "\"app-1\"");
      assertThat(gunzip(fetchGzipped(accept))).isEqualTo(plain);
    }
  }

  /**
   * A full fetch large enough to be kept off the heap for sending (over 64 KB gzipped) is sent to
   * every caller whole: callers at once and one after another are each sent the one kept copy, from
   * its start, and each decompresses to the plain document; after a change, the new one.
   */
  @Test
  void aLargeGzippedFullFetchIsSentWholeToEveryCallerAtOnceAndInTurn() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    java.util.Random random = new java.util.Random(40);
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> registered = new java.util.ArrayList<>();
    for (int i = 0; i < 1_200; i++) {
      // A token of random hex per instance, so that the document does not compress to nothing.
      String token = new java.math.BigInteger(256, random).toString(16);
      String body = instanceJson("BULK", "bulk-" + i, "127.2." + (i / 250) + "." + (1 + i % 250), 8080, 30, 90)
          .replace("\"zone\":\"a\"", "\"token\":\"" + token + "\"");
      registered.add(http.sendAsync(HttpRequest.newBuilder(uri("/eureka/apps/BULK")).timeout(WAIT)
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString()));
      if (registered.size() == 32) {
        registered.forEach(answer -> assertThat(answer.join().statusCode()).isEqualTo(204));
        registered.clear();
      }
    }
    registered.forEach(answer -> assertThat(answer.join().statusCode()).isEqualTo(204));
    String plain = get("/eureka/apps", "application/json").body();
    assertThat(plain).contains("bulk-0\"", "bulk-1199\"");
    byte[] first = fetchGzipped("application/json");
    assertThat(first.length).as("gzipped bytes").isGreaterThan(64 * 1024);
    assertThat(gunzip(first)).isEqualTo(plain);

    List<java.util.concurrent.CompletableFuture<HttpResponse<byte[]>>> atOnce = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      atOnce.add(HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(uri("/eureka/apps")).timeout(WAIT)
          .header("Accept", "application/json").header("Accept-Encoding", "gzip").build(),
          HttpResponse.BodyHandlers.ofByteArray()));
    }
    for (var answer : atOnce) {
      assertThat(answer.join().body()).isEqualTo(first);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(fetchGzipped("application/json")).isEqualTo(first);
    }
    assertThat(send("DELETE", "/eureka/apps/BULK/bulk-7", null, null).statusCode()).isEqualTo(200);
    String after = get("/eureka/apps", "application/json").body();
    assertThat(after).doesNotContain("\"bulk-7\"").contains("\"bulk-8\"");
    assertThat(gunzip(fetchGzipped("application/json"))).isEqualTo(after);

    // Changes while callers fetch: a document replaced while it is being sent (its copy given
    // back) is still sent whole, and every caller gets a whole document, old or new.
    for (int round = 0; round < 10; round++) {
      List<java.util.concurrent.CompletableFuture<HttpResponse<byte[]>>> fetches = new java.util.ArrayList<>();
      for (int i = 0; i < 4; i++) {
        fetches.add(http.sendAsync(HttpRequest.newBuilder(uri("/eureka/apps")).timeout(WAIT)
            .header("Accept", "application/json").header("Accept-Encoding", "gzip").build(),
            HttpResponse.BodyHandlers.ofByteArray()));
      }
      register("BULK", "late-" + round, "127.3.0." + (round + 1), 8080);
      for (var answer : fetches) {
        assertThat(gunzip(answer.join().body())).startsWith("{\"applications\":").contains("\"bulk-1199\"")
            .endsWith("]}]}}");
      }
    }
    assertThat(gunzip(fetchGzipped("application/json"))).contains("\"late-9\"");
  }

  /**
   * The delta, too: each application's changes compressed once and spliced, compressed again only
   * when that application's changes are no longer the same, gzipped is the plain delta.
   */
  @Test
  void aGzippedDeltaIsThePlainDeltaAfterEveryChange() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    get("/eureka/apps", "application/json"); // a client's first call: changes are kept from here on
    for (int i = 0; i < 40; i++) {
      register(i % 2 == 0 ? "ORDERS" : "BILLING", "app-" + i, "127.0.1." + (i + 1), 8080);
    }
    for (String accept : List.of("application/json", "application/xml")) {
      assertThat(gunzip(fetchGzipped(accept, "/eureka/apps/delta"))).isEqualTo(get("/eureka/apps/delta", accept)
          .body());
    }
    register("ORDERS", "app-40", "127.0.1.41", 8080); // one application changes, the other not
    assertThat(send("DELETE", "/eureka/apps/BILLING/app-1", null, null).statusCode()).isEqualTo(200);
    register("PAYMENTS", "app-41", "127.0.1.42", 8080); // an application appears
    for (String accept : List.of("application/json", "application/xml")) {
      String plain = get("/eureka/apps/delta", accept).body();
      assertThat(plain).contains("app-40", "app-41", "app-1", "DELETED", "app-39");
      assertThat(gunzip(fetchGzipped(accept, "/eureka/apps/delta"))).isEqualTo(plain);
    }
    register("PAYMENTS", "app-42", "127.0.1.43", 8080); // only the new application changes again
    String plain = get("/eureka/apps/delta", "application/json").body();
    assertThat(instanceOf(plain, "app-42")).contains("\"actionType\":\"ADDED\"");
    assertThat(gunzip(fetchGzipped("application/json", "/eureka/apps/delta"))).isEqualTo(plain);
  }

  private byte[] fetchGzipped(String accept) throws Exception {
    return fetchGzipped(accept, "/eureka/apps");
  }

  private byte[] fetchGzipped(String accept, String path) throws Exception {
    HttpResponse<byte[]> zipped = http.send(HttpRequest.newBuilder(uri(path)).timeout(WAIT)
        .header("Accept", accept).header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
    return zipped.body();
  }

  private static String gunzip(byte[] zipped) throws Exception {
    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(zipped))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void changesAreKeptForTheDeltaFromAReadOnUntilAWindowPassesWithoutOne() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    register("ORDERS", "orders-1", "127.0.0.5", 8080);

    // Nobody had read a catalog: the change was not kept, and the hash tells a client whose copy
    // lacks it to fetch the whole registry (Eureka's client compares it with its copy's).
    String delta = get("/eureka/apps/delta", "application/json").body();
    assertThat(delta).contains("\"application\":[]", "\"apps__hashcode\":\"UP_1_\"");
    register("ORDERS", "orders-2", "127.0.0.6", 8080);
    assertThat(instanceOf(get("/eureka/apps/delta", "application/json").body(), "orders-2"))
        .contains("\"actionType\":\"ADDED\"");

    // Three minutes and more without a read (the instances renewing): keeping stops, and starts
    // again at the next read.
    for (int step = 0; step < 5; step++) {
      clock.advance(Duration.ofSeconds(37));
      for (String id : new String[] {"orders-1", "orders-2"}) {
        assertThat(send("PUT", "/eureka/apps/ORDERS/" + id, null, null).statusCode()).isEqualTo(200);
      }
    }
    register("BILLING", "billing-1", "127.0.0.7", 9090);
    delta = get("/eureka/apps/delta", "application/json").body();
    assertThat(delta).contains("\"application\":[]", "\"apps__hashcode\":\"UP_3_\"");
    register("BILLING", "billing-2", "127.0.0.8", 9090);
    delta = get("/eureka/apps/delta", "application/json").body();
    assertThat(instanceOf(delta, "billing-2")).contains("\"actionType\":\"ADDED\"");
    assertThat(delta).doesNotContain("billing-1");
  }

  @Test
  void theDeltaCarriesEachChangeWithItsActionAndTheHashOfTheWholeRegistry() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    get("/eureka/apps", "application/json"); // a client's first call: the full fetch
    register("ORDERS", "orders-1", "127.0.0.5", 8080);
    register("ORDERS", "orders-2", "127.0.0.6", 8080);
    register("BILLING", "billing-1", "127.0.0.7", 9090);
    send("DELETE", "/eureka/apps/ORDERS/orders-2", null, null);
    send("PUT", "/eureka/apps/BILLING/billing-1/status?value=OUT_OF_SERVICE", null, null);

    String delta = get("/eureka/apps/delta", "application/json").body();
    assertThat(delta).contains("\"apps__hashcode\":\"OUT_OF_SERVICE_1_UP_1_\"");
    assertThat(instanceOf(delta, "orders-1")).contains("\"actionType\":\"ADDED\"");
    assertThat(instanceOf(delta, "orders-2")).contains("\"actionType\":\"DELETED\"");
    assertThat(instanceOf(delta, "billing-1")).contains("\"actionType\":\"ADDED\"", "\"status\":\"OUT_OF_SERVICE\"");
    assertThat(get("/eureka/apps", "application/json").body()).contains("\"apps__hashcode\":\"OUT_OF_SERVICE_1_UP_1_\"");

    // Three minutes on, the changes have left the delta; the hash stays the registry's. The
    // instances renew every 37 s meanwhile, well within their 90 s lease: the server's expiry
    // ticker runs on its own and would rightly remove an instance the clock jumped past.
    for (int step = 0; step < 5; step++) {
      clock.advance(Duration.ofSeconds(37));
      for (String id : new String[] {"orders-1", "billing-1"}) {
        assertThat(send("PUT", "/eureka/apps/" + (id.startsWith("o") ? "ORDERS/" : "BILLING/") + id, null, null)
            .statusCode()).isEqualTo(200);
      }
    }
    delta = get("/eureka/apps/delta", "application/json").body();
    assertThat(delta).contains("\"application\":[]", "\"apps__hashcode\":\"OUT_OF_SERVICE_1_UP_1_\"");
  }

  @Test
  void xmlIsReadAndWrittenAsEurekaWritesIt() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    assertThat(send("POST", "/eureka/apps/INVENTORY", instanceXml("INVENTORY", "inv-1", "127.0.0.8", 7000),
        "application/xml").statusCode()).isEqualTo(204);
    HttpResponse<String> apps = get("/eureka/apps", "application/xml");
    assertThat(apps.headers().firstValue("Content-Type")).hasValue("application/xml");
    assertThat(apps.body()).contains("<apps__hashcode>UP_1_</apps__hashcode>", "<name>INVENTORY</name>",
        "<instanceId>inv-1</instanceId>", "<port enabled=\"true\">7000</port>", "<lang>go</lang>",
        "<dataCenterInfo class=\"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo\"><name>MyOwn</name>");
    // Eureka's server answers XML unless the caller accepts JSON.
    assertThat(get("/eureka/apps/INVENTORY", null).body()).startsWith("<?xml").contains("<application>");
  }

  @Test
  void badInputIsRefusedWithEurekasStatusNamingTheFieldAndChangesNothing() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    register("ORDERS", "orders-1", "127.0.0.5", 8080);
    String before = get("/eureka/apps", "application/json").body();

    Map<String, String> refusals = Map.of(
        "{\"instance\":{\"app\":\"ORDERS\",", "not valid JSON",
        instanceJson("ORDERS", "o-2", "127.0.0.6", 8080, 30, 90).replace("\"hostName\":\"o-2.local\",", ""),
        "instance.hostName is required",
        instanceJson("BILLING", "o-2", "127.0.0.6", 8080, 30, 90), "does not match the application in the path",
        instanceJson("ORDERS", "o-2", "127.0.0.6", 8080, 30, 10), "durationInSecs (10) must not be below",
        instanceJson("ORDERS", "o-2", "127.0.0.6", 70000, 30, 90), "instance.port must be a whole number 0-65535",
        instanceJson("ORDERS", "o-2", "not an ip", 8080, 30, 90), "instance.ip",
        instanceJson("ORDERS", "o-2", "127.0.0.6", 8080, 30, 90).replace("\"zone\":\"a\"", "\"eureka.x\":\"1\""),
        "'eureka.x' is reserved",
        "{\"application\":{}}", "must be an InstanceInfo document");
    for (Map.Entry<String, String> refusal : refusals.entrySet()) {
      HttpResponse<String> answer = send("POST", "/eureka/apps/ORDERS", refusal.getKey(), "application/json");
      assertThat(answer.statusCode()).as(refusal.getKey()).isEqualTo(400);
      assertThat(JsonCodec.json().decode(answer.body(), ErrorBody.class).message()).as(refusal.getKey())
          .contains(refusal.getValue());
    }
    HttpResponse<String> xml = send("POST", "/eureka/apps/ORDERS", "<instance><app>ORDERS</app>", "application/xml");
    assertThat(xml.statusCode()).isEqualTo(400);
    assertThat(xml.body()).contains("not valid XML");
    HttpResponse<String> entity = send("POST", "/eureka/apps/ORDERS", "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e "
        + "SYSTEM \"file:///etc/passwd\">]><instance><app>&e;</app></instance>", "application/xml");
    assertThat(entity.statusCode()).isEqualTo(400);
    assertThat(entity.body()).doesNotContain("root:");

    assertThat(send("PATCH", "/eureka/apps/ORDERS/orders-1", "{}", "application/json").statusCode()).isEqualTo(405);
    HttpResponse<String> wrongMethod = send("POST", "/eureka/apps", "{}", "application/json");
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("GET");
    assertThat(get("/eureka/apps/NOPE", "application/json").statusCode()).isEqualTo(404);
    assertThat(get("/eureka/apps/ORDERS/nope", "application/json").statusCode()).isEqualTo(404);
    assertThat(get("/eureka/nothing", "application/json").statusCode()).isEqualTo(404);
    assertThat(send("PUT", "/eureka/apps/ORDERS/orders-1/status?value=SIDEWAYS", null, null).body())
        .contains("value must be one of UP, DOWN, STARTING, OUT_OF_SERVICE, UNKNOWN");
    // An Eureka server replicating to this one is told it is not a peer.
    HttpResponse<String> replication = http.send(HttpRequest.newBuilder(uri("/eureka/apps/ORDERS"))
        .header("x-netflix-discovery-replication", "true").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(instanceJson("ORDERS", "o-3", "127.0.0.9", 80, 30, 90))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(replication.statusCode()).isEqualTo(403);
    assertThat(replication.body()).contains("not an Eureka peer");

    assertThat(get("/eureka/apps", "application/json").body()).isEqualTo(before);
  }

  @Test
  void aLeaseNotRenewedForItsDurationEndsAndTheRenewalAfterIsTold404() throws Exception {
    // Without self-preservation: here the one instance stops renewing on purpose.
    LifecycleConfig defaults = LifecycleConfig.DEFAULTS;
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withLifecycle(new LifecycleConfig(
        defaults.emptyServiceCleanup(), defaults.overrideRetention(), false, defaults.selfPreservationWindow(),
        defaults.selfPreservationThreshold())), clock);
    List<TraceEvent> trail = new CopyOnWriteArrayList<>();
    WireClient operator = fixture.connect("operator");
    Disposable tracing = operator.stream("admin.trace", "{}")
        .subscribe(event -> trail.add(JsonCodec.json().decode(event, TraceEvent.class)));
    // The trail is followed once a change made now shows in it (the stream opens asynchronously).
    await().atMost(WAIT).until(() -> {
      send("POST", "/api/v1/instance.register", "{\"service\":\"probe\",\"instance\":{\"ip\":\"127.0.0.9\","
          + "\"port\":9}}", "application/json");
      return trail.stream().anyMatch(event -> "probe".equals(event.service()));
    });
    send("POST", "/eureka/apps/ORDERS", instanceJson("ORDERS", "orders-1", "127.0.0.5", 8080, 1, 3),
        "application/json");
    clock.advance(Duration.ofMillis(2_500));
    assertThat(send("PUT", "/eureka/apps/ORDERS/orders-1", null, null).statusCode()).isEqualTo(200);
    clock.advance(Duration.ofMillis(2_500)); // renewed 2.5 s ago: within its 3 s
    assertThat(get("/eureka/apps/ORDERS", "application/json").statusCode()).isEqualTo(200);
    clock.advance(Duration.ofMillis(1_000));
    await().atMost(WAIT).until(() -> get("/eureka/apps/ORDERS", "application/json").statusCode() == 404);
    assertThat(send("PUT", "/eureka/apps/ORDERS/orders-1", null, null).statusCode()).isEqualTo(404);
    // The audit trail names the door as the registration's actor, and expiry as the removal's cause.
    await().atMost(WAIT).until(() -> trail.stream().anyMatch(event -> "orders".equals(event.service())
        && "HEARTBEAT_TIMEOUT".equals(event.cause())));
    assertThat(trail).anyMatch(event -> "orders".equals(event.service()) && "REGISTER".equals(event.cause())
        && "eureka".equals(event.connection()));
    tracing.dispose();
    operator.close();
  }

  @Test
  void withTokensARequestNeedsOneAndBasicCarriesItAsThePassword(@TempDir Path dir) throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, TokenFile.of(Map.of(
        "eureka-app-5b6c7d", "{\"public\":[\"read\",\"write\"]}",
        "reader-7a8b9c", "{\"public\":[\"read\"]}")));
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, tokens, null,
        1_000_000, Duration.ofMinutes(1))), clock);
    String body = instanceJson("ORDERS", "orders-1", "127.0.0.5", 8080, 30, 90);
    assertThat(send("POST", "/eureka/apps/ORDERS", body, "application/json").statusCode()).isEqualTo(401);
    assertThat(sendAs(basic("eureka", "reader-7a8b9c"), "POST", "/eureka/apps/ORDERS", body).statusCode())
        .isEqualTo(403);
    HttpResponse<String> wrong = sendAs(basic("eureka", "wrong-1234567"), "POST", "/eureka/apps/ORDERS", body);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(value -> assertThat(value)
        .startsWith("Basic"));
    assertThat(sendAs(basic("eureka", "eureka-app-5b6c7d"), "POST", "/eureka/apps/ORDERS", body).statusCode())
        .isEqualTo(204);
    assertThat(sendAs("Bearer reader-7a8b9c", "GET", "/eureka/apps", null).body()).contains("orders-1");
  }

  private void register(String app, String id, String ip, int port) throws Exception {
    assertThat(send("POST", "/eureka/apps/" + app, instanceJson(app, id, ip, port, 30, 90), "application/json")
        .statusCode()).isEqualTo(204);
  }

  /** The JSON of one instance of an applications document. */
  private static String instanceOf(String document, String id) {
    int start = document.indexOf("{\"instanceId\":\"" + id + "\"");
    assertThat(start).as(id + " in " + document).isNotNegative();
    int end = document.indexOf("{\"instanceId\":", start + 1);
    return end < 0 ? document.substring(start) : document.substring(start, end);
  }

  private static String basic(String user, String token) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + token).getBytes(StandardCharsets.UTF_8));
  }

  private HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(WAIT).GET();
    if (accept != null) {
      request.header("Accept", accept);
    }
    return exchange(request.build());
  }

  private HttpResponse<String> send(String method, String path, String body, String contentType) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(WAIT)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    return exchange(request.build());
  }

  /** A request answered, or, when it times out, every thread's stack in the failure: where the server waited. */
  private HttpResponse<String> exchange(HttpRequest request) throws Exception {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (java.net.http.HttpTimeoutException e) {
      throw new AssertionError(request.method() + " " + request.uri() + " timed out; threads:\n" + ThreadDump.all(), e);
    }
  }

  private HttpResponse<String> sendAs(String authorization, String method, String path, String body)
      throws Exception {
    return http.send(HttpRequest.newBuilder(uri(path)).timeout(WAIT).header("Authorization", authorization)
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path);
  }
}
