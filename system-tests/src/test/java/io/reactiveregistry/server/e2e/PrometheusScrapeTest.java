package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactiveregistry.server.ServerConfig;
import java.io.File;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * What the README promises of Prometheus discovery, with Prometheus itself (Debian's package, as {@code .ci/run}
 * installs it): pointed at {@code /api/v1/prometheus/targets}, it discovers the registered
 * instances, scrapes each on the port and path of its metadata, and labels their series with the
 * service; an instance deregistered is no longer scraped.
 */
@Tag("process") // starts Prometheus: left out by -Pquick, run in CI
class PrometheusScrapeTest {
  static final String PROMETHEUS = "/usr/bin/prometheus";
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  Path dir;
  ServerFixture fixture;
  final List<DisposableServer> backends = new ArrayList<>();
  Process prometheus;

  @BeforeAll
  static void needsPrometheus() {
    Prerequisites.require(new File(PROMETHEUS).canExecute(),
        "no Prometheus here (" + PROMETHEUS + "): .ci/run installs Debian's prometheus");
  }

  @AfterEach
  void stop() throws Exception {
    if (prometheus != null) {
      prometheus.destroyForcibly().waitFor();
    }
    backends.forEach(DisposableServer::disposeNow);
    if (fixture != null) {
      fixture.close();
    }
  }

  @Test
  void prometheusDiscoversTheRegisteredInstancesAndScrapesThemWithTheirServiceLabel() throws Exception {
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback());
    // Two applications exposing metrics: one on its own port's /metrics, one on a management port
    // and path given by its metadata.
    DisposableServer orders = metrics("/metrics", "orders_in_flight 3\n");
    DisposableServer payments = metrics("/management/prometheus", "payments_in_flight 5\n");
    try (WireClient app = WireClient.connect(fixture.port(), "apps")) {
      app.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":"
          + orders.port() + "}}");
      app.call("instance.register", "{\"service\":\"payments\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":1,"
          + "\"metadata\":{\"prometheus.port\":\"" + payments.port() + "\",\"prometheus.path\":"
          + "\"/management/prometheus\",\"zone\":\"a\"}}}");

      int web = MemberPorts.free(1).get(0);
      Path config = dir.resolve("prometheus.yml");
      Files.writeString(config, """
          global:
            scrape_interval: 1s
            scrape_timeout: 1s
          scrape_configs:
            - job_name: registered
              http_sd_configs:
                - url: http://127.0.0.1:%d/api/v1/prometheus/targets
                  refresh_interval: 1s
          """.formatted(fixture.server().httpPort()));
      prometheus = new ProcessBuilder(PROMETHEUS, "--config.file=" + config,
          "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + web)
          .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();

      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().untilAsserted(() -> {
        Map<String, String> seen = series(web, "{__name__=~\"orders_in_flight|payments_in_flight\"}");
        assertThat(seen).containsEntry("orders_in_flight", "orders 3").containsEntry("payments_in_flight",
            "payments 5");
      });
      JsonNode active = query(web, "/api/v1/targets?state=active").get("data").get("activeTargets");
      assertThat(active).hasSize(2).allSatisfy(target -> assertThat(target.get("health").asText()).isEqualTo("up"));

      // Deregistered: Prometheus drops the target at its next refresh.
      app.call("instance.deregister", "{\"service\":\"payments\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":1}}");
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
          assertThat(query(web, "/api/v1/targets?state=active").get("data").get("activeTargets"))
              .singleElement().satisfies(target -> assertThat(target.get("labels").get("service").asText())
                  .isEqualTo("orders")));
    }
  }

  /** An application's metrics endpoint on a port of its own. */
  private DisposableServer metrics(String path, String body) {
    DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
        .route(routes -> routes.get(path, (request, response) -> response
            .header("Content-Type", "text/plain; version=0.0.4").sendString(Mono.just(body))))
        .bindNow();
    backends.add(server);
    return server;
  }

  /** Each series Prometheus holds for {@code selector}: its name, then its service label and value. */
  private static Map<String, String> series(int web, String selector) throws Exception {
    JsonNode result = query(web, "/api/v1/query?query=" + URLEncoder.encode(selector, StandardCharsets.UTF_8))
        .get("data").get("result");
    Map<String, String> seen = new HashMap<>();
    for (JsonNode series : result) {
      seen.put(series.get("metric").get("__name__").asText(), series.get("metric").get("service").asText() + " "
          + series.get("value").get(1).asText());
    }
    return seen;
  }

  private static JsonNode query(int web, String path) throws Exception {
    HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web + path))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    return new ObjectMapper().readTree(answer.body());
  }
}
