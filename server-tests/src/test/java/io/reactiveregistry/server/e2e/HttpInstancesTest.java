package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.Quotas;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Instances registered over HTTP belong to no connection: they live by their heartbeats, and count
 * against a quota of their own ({@code --max-http-instances}), not one connection's
 * {@code --max-instances-per-connection}.
 */
class HttpInstancesTest {
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

  @Test
  void thirtyThousandInstancesRegisteredOverHttpLiveOnOneNodeWithTheDefaultsAndTheirHeartbeatsKeepThem()
      throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);
    int batches = 30;
    int perBatch = 1_000; // 30 services of 1,000: more than one connection may own (10,000)
    for (int b = 0; b < batches; b++) {
      int batch = b;
      String instances = IntStream.range(0, perBatch)
          .mapToObj(i -> "{\"ip\":\"127.0." + batch + "." + (i / 250 + 1) + "\",\"port\":" + (8000 + i % 250) + "}")
          .collect(Collectors.joining(","));
      HttpResponse<String> answer = post("instance.batch-register",
          "{\"service\":\"fleet-" + b + "\",\"instances\":[" + instances + "]}");
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }
    assertThat(healthy()).isEqualTo(batches * perBatch);
  }

  @Test
  void instancesRegisteredOverHttpLiveByTheirHeartbeats() throws Exception {
    // Without self-preservation: here most heartbeats stop on purpose, which would otherwise hold every
    // instance as it is (SelfPreservationEndToEndTest).
    LifecycleConfig defaults = LifecycleConfig.DEFAULTS;
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withLifecycle(new LifecycleConfig(
        defaults.emptyServiceCleanup(), defaults.overrideRetention(), false, defaults.selfPreservationWindow(),
        defaults.selfPreservationThreshold())), clock);
    int batches = 30;
    for (int b = 0; b < batches; b++) {
      String instances = IntStream.range(0, 10)
          .mapToObj(i -> "{\"ip\":\"127.0.0." + (i + 1) + "\",\"port\":8000}").collect(Collectors.joining(","));
      assertThat(post("instance.batch-register", "{\"service\":\"fleet-" + b + "\",\"instances\":[" + instances
          + "]}").statusCode()).isEqualTo(200);
    }
    assertThat(healthy()).isEqualTo(batches * 10);

    // Past the heartbeat timeout, only the instances whose heartbeats came stay healthy.
    List<String> kept = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      kept.add("{\"service\":\"fleet-" + b + "\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":8000}}");
    }
    clock.advance(Duration.ofSeconds(10));
    for (String beat : kept) {
      HttpResponse<String> answer = post("instance.heartbeat", beat);
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(answer.body()).contains("REFRESHED");
    }
    clock.advance(Duration.ofSeconds(6)); // 16 s: past the 15 s timeout for the others, 6 s for the kept
    await().atMost(WAIT).until(() -> healthy() == kept.size());
  }

  @Test
  void theirQuotaIsTheirOwnAndARegistrationPastItIsRefusedNamingTheSetting() throws Exception {
    Quotas defaults = Quotas.DEFAULTS;
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withMaxInstancesPerConnection(2)
        .withQuotas(new Quotas(defaults.maxNamespaces(), defaults.maxServices(), defaults.maxServicesPerNamespace(),
            defaults.maxPersistentInstances(), defaults.maxPersistentInstancesPerNamespace(),
            defaults.maxDurableMetadataBytes(), defaults.maxDurableMetadataBytesPerNamespace(), 3)), clock);
    for (int port = 1; port <= 3; port++) { // more than a connection may own here (2)
      assertThat(post("instance.register", register(port)).statusCode()).isEqualTo(200);
    }
    HttpResponse<String> refused = post("instance.register", register(4));
    assertThat(refused.statusCode()).isEqualTo(429);
    ErrorBody error = JsonCodec.json().decode(refused.body(), ErrorBody.class);
    assertThat(error.code()).isEqualTo("LIMIT_EXCEEDED");
    assertThat(error.message()).contains("at most 3 instances registered over HTTP", "max-http-instances");
    assertThat(healthy()).isEqualTo(3);
    // A connection's own quota is apart: it may still own its two.
    try (WireClient connection = fixture.connect("app")) {
      connection.call("instance.register", register(5));
      connection.call("instance.register", register(6));
    }
  }

  private static String register(int port) {
    return "{\"service\":\"quota\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":" + port + "}}";
  }

  /** Healthy instances over every service, as service.list counts them. */
  private int healthy() {
    return fixture.server().runtime().read(registry -> registry.list("public", null, null)).stream()
        .mapToInt(summary -> summary.healthyCount()).sum();
  }

  private HttpResponse<String> post(String route, String json) throws Exception {
    return http.send(HttpRequest.newBuilder(uri("/api/v1/" + route)).timeout(WAIT)
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path);
  }
}
