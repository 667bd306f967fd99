package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.SecurityConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /api/v1/prometheus/targets}: registered instances as Prometheus's HTTP service
 * discovery reads them, with the scrape port, path and scheme of their metadata and the labels a
 * dashboard groups by; a token that may not read the namespace gets nothing.
 */
class PrometheusDiscoveryTest {
  static final String OPS = "ops-token-4c1e";
  static final String APP = "app-token-77aa";
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  static Path dir;
  static ServerFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, TokenFile.of(Map.of(OPS, "{\"*\":[\"read\",\"write\",\"admin\"]}",
        APP, "{\"prod\":[\"read\"]}")));
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, tokens)));
    register("prod", "orders", "{\"ip\":\"127.0.0.5\",\"port\":8080,\"cluster\":\"eu\",\"metadata\":"
        + "{\"prometheus.port\":\"9090\",\"prometheus.path\":\"actuator/prometheus\",\"zone\":\"a\","
        + "\"version\":\"2.1\"}}");
    register("prod", "orders", "{\"ip\":\"127.0.0.6\",\"port\":8080,\"metadata\":{\"prometheus.scheme\":\"https\"}}");
    register("prod", "payments", "{\"ip\":\"127.0.0.7\",\"port\":7000}");
    register("public", "elsewhere", "{\"ip\":\"127.0.0.8\",\"port\":7000}");
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void everyInstanceOfTheNamespaceIsATargetWithItsScrapeAddressPathSchemeAndLabels() throws Exception {
    HttpResponse<String> answer = get("/api/v1/prometheus/targets?namespace=prod", APP);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
        assertThat(type).startsWith("application/json"));
    List<JsonNode> groups = groups(answer.body());
    assertThat(groups).extracting(group -> group.get("targets").get(0).asText())
        .containsExactlyInAnyOrder("127.0.0.5:9090", "127.0.0.6:8080", "127.0.0.7:7000");

    JsonNode scraped = byTarget(groups, "127.0.0.5:9090").get("labels");
    assertThat(scraped.get("namespace").asText()).isEqualTo("prod");
    assertThat(scraped.get("group").asText()).isEqualTo("DEFAULT_GROUP");
    assertThat(scraped.get("service").asText()).isEqualTo("orders");
    assertThat(scraped.get("cluster").asText()).isEqualTo("eu");
    assertThat(scraped.get("zone").asText()).isEqualTo("a");
    assertThat(scraped.get("__metrics_path__").asText()).isEqualTo("/actuator/prometheus");
    assertThat(scraped.get("__meta_registry_instance_id").asText()).isEqualTo("127.0.0.5#8080#eu");
    assertThat(scraped.get("__meta_registry_healthy").asText()).isEqualTo("true");
    assertThat(scraped.get("__meta_registry_metadata_version").asText()).isEqualTo("2.1");
    assertThat(scraped.get("__meta_registry_metadata_prometheus_port").asText()).isEqualTo("9090");
    JsonNode secure = byTarget(groups, "127.0.0.6:8080").get("labels");
    assertThat(secure.get("__scheme__").asText()).isEqualTo("https");
    assertThat(secure.has("__metrics_path__")).as("Prometheus's default path").isFalse();
    assertThat(secure.has("zone")).isFalse();

    List<JsonNode> orders = groups(get("/api/v1/prometheus/targets?namespace=prod&service=orders", APP).body());
    assertThat(orders).hasSize(2).allSatisfy(group ->
        assertThat(group.get("labels").get("service").asText()).isEqualTo("orders"));
    assertThat(groups(get("/api/v1/prometheus/targets", OPS).body()))
        .as("the public namespace by default").singleElement()
        .satisfies(group -> assertThat(group.get("targets").get(0).asText()).isEqualTo("127.0.0.8:7000"));
  }

  @Test
  void aCallerThatMayNotReadTheNamespaceIsRefusedAndOneWithoutATokenToo() throws Exception {
    HttpResponse<String> forbidden = get("/api/v1/prometheus/targets?namespace=public", APP);
    assertThat(forbidden.statusCode()).isEqualTo(403);
    assertThat(forbidden.body()).contains("FORBIDDEN").contains("public");
    HttpResponse<String> anonymous = get("/api/v1/prometheus/targets?namespace=prod", null);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    HttpResponse<String> badName = get("/api/v1/prometheus/targets?namespace=no%20spaces", OPS);
    assertThat(badName.statusCode()).isEqualTo(400);
    assertThat(badName.body()).contains("namespace");
  }

  private static void register(String namespace, String service, String instance) throws Exception {
    HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(uri("/api/v1/instance.register"))
        .header("Authorization", "Bearer " + OPS)
        .POST(HttpRequest.BodyPublishers.ofString("{\"namespace\":\"" + namespace + "\",\"service\":\"" + service
            + "\",\"instance\":" + instance + "}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
  }

  private static HttpResponse<String> get(String path, @Nullable String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path);
  }

  private static List<JsonNode> groups(String body) throws Exception {
    List<JsonNode> groups = new ArrayList<>();
    new ObjectMapper().readTree(body).forEach(groups::add);
    return groups;
  }

  private static JsonNode byTarget(List<JsonNode> groups, String target) {
    return groups.stream().filter(group -> group.get("targets").get(0).asText().equals(target)).findFirst()
        .orElseThrow(() -> new AssertionError("no target " + target + " in " + groups));
  }
}
