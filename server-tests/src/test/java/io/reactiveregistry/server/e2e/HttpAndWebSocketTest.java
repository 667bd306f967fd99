package io.reactiveregistry.server.e2e;

import static io.reactiveregistry.server.e2e.Registrations.registration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP endpoints, on real sockets (RSocket over WebSocket: ContractOverTransportsTest). */
class HttpAndWebSocketTest {
  private final ServerFixture fixture = new ServerFixture();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    fixture.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path)).GET());
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theHttpListingPagesLikeServiceListAndClustersTakeACommaList() throws Exception {
    WireClient app = fixture.connect("app");
    for (String service : List.of("a", "b", "c", "d", "e")) {
      app.call("instance.register", registration(service, "127.0.0.5", 8080));
    }
    for (String cluster : List.of("east", "west", "north")) {
      app.call("instance.register", registration("orders", "127.0.0.6", 8080, "\"cluster\":\"" + cluster + "\""));
    }

    String page = get("/api/v1/services?page=2&pageSize=2").body();
    assertThat(page).contains("\"total\":6");
    assertThat(JsonCodec.json().decode(page, ServiceList.class).services())
        .extracting(ServiceSummary::service).containsExactly("c", "d");
    assertThat(app.call("service.list", "{\"page\":2,\"pageSize\":2}", ServiceList.class).services())
        .extracting(ServiceSummary::service).containsExactly("c", "d");

    HttpResponse<String> tooLarge = get("/api/v1/services?pageSize=1001");
    assertThat(tooLarge.statusCode()).isEqualTo(400);
    assertThat(tooLarge.body()).contains("INVALID_PARAM").contains("pageSize must be between 1 and 1000");
    assertThat(get("/api/v1/services?page=x").body()).contains("page must be a whole number");

    String commaList = get("/api/v1/services/public/DEFAULT_GROUP/orders?clusters=east,west").body();
    String repeated = get("/api/v1/services/public/DEFAULT_GROUP/orders?clusters=east&clusters=west").body();
    assertThat(JsonCodec.json().decode(commaList, ServiceSnapshot.class).instances())
        .extracting(InstanceBody::cluster).containsExactlyInAnyOrder("east", "west");
    assertThat(commaList).isEqualTo(repeated);
    assertThat(get("/api/v1/services/public/DEFAULT_GROUP/orders?clusters=east,").body())
        .contains("INVALID_PARAM").contains("clusters[1]");
  }

  @Test
  void healthReadinessAndTheReadOnlyApiAnswerWithStatusAndJson() throws Exception {
    WireClient app = fixture.connect("orders-app");
    app.call("instance.register", registration("orders", "127.0.0.5", 8080));

    assertThat(get("/health").statusCode()).isEqualTo(200);
    HttpResponse<String> ready = get("/ready");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(get("/api/v1/services?namespace=public").body())
        .contains("\"total\":1").contains("\"service\":\"orders\"").contains("\"instanceCount\":1");
    HttpResponse<String> snapshot = get("/api/v1/services/public/DEFAULT_GROUP/orders");
    assertThat(snapshot.statusCode()).isEqualTo(200);
    assertThat(snapshot.body()).contains("\"ip\":\"127.0.0.5\"");

    HttpResponse<String> missing = get("/api/v1/services/public/DEFAULT_GROUP/nope");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("\"code\":\"NOT_FOUND\"");
    assertThat(get("/api/v1/services?group=bad%20name").statusCode()).isEqualTo(400);
    assertThat(get("/nowhere").statusCode()).isEqualTo(404);
    assertThat(send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.server().httpPort() + "/health"))
        .POST(HttpRequest.BodyPublishers.noBody())).statusCode()).isEqualTo(405);
  }

  @Test
  void metricsChangeAfterARegisterAHeartbeatAndAClose() throws Exception {
    WireClient app = fixture.connect("orders-app");
    app.call("instance.register", registration("orders", "127.0.0.5", 8080));
    app.fire("instance.heartbeat", "{}");
    await().atMost(Duration.ofSeconds(5)).until(() -> metric("registry_heartbeats_total") >= 1);

    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
    assertThat(metric("registry_changes_total{cause=\"REGISTER\"}")).isEqualTo(1);
    assertThat(metric("registry_instances{health=\"healthy\",type=\"ephemeral\"}")).isEqualTo(1);
    assertThat(metric("registry_connections")).isEqualTo(1);
    assertThat(metric("registry_requests_seconds_count{outcome=\"ok\",route=\"instance.register\"}")).isEqualTo(1);
    assertThat(metrics.body()).contains("jvm_memory_used_bytes");

    app.close();
    await().atMost(Duration.ofSeconds(5)).until(() -> metric("registry_changes_total{cause=\"CONNECTION_CLOSED\"}") == 1);
    // Instance counts are shared by one scrape's gauges and may be up to 100 ms old.
    await().atMost(Duration.ofSeconds(5)).until(() ->
        metric("registry_instances{health=\"healthy\",type=\"ephemeral\"}") == 0);
  }

  private double metric(String series) throws Exception {
    for (String line : get("/metrics").body().lines().toList()) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return -1;
  }

  @Test
  void onShutdownSubscribersSeeTheirStreamsEndCleanly() {
    WireClient watcher = fixture.connect("watcher");
    List<String> signals = new CopyOnWriteArrayList<>();
    watcher.stream("service.subscribe", "{\"service\":\"orders\"}")
        .subscribe(e -> signals.add("event"), error -> signals.add("error " + error), () -> signals.add("complete"));
    await().atMost(Duration.ofSeconds(5)).until(() -> signals.contains("event"));

    long start = System.nanoTime();
    fixture.server().disposeNow(Duration.ofSeconds(10));

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    await().atMost(Duration.ofSeconds(5)).until(() -> signals.size() > 1);
    assertThat(signals).containsExactly("event", "complete");
  }
}
