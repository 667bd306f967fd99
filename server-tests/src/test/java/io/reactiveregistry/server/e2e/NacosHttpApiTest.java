package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.security.SecurityConfig;
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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nacos's HTTP Open API over a real socket, as scripts and other languages' SDKs use it: register,
 * beat, list, detail, update and deregister, in Nacos 1's and Nacos 2's forms; services; what it
 * refuses, named, with nothing changed; beats kept on virtual time; the login with a token as the
 * password. Nacos's own Java client drives the gRPC side in the {@code interop/nacos} module.
 */
class NacosHttpApiTest {
  static final ObjectMapper JSON = new ObjectMapper();
  final HttpClient http = HttpClient.newHttpClient();
  final ManualClock clock = new ManualClock(1_000_000);
  ServerFixture fixture;

  @AfterEach
  void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  void start(ServerConfig config) {
    fixture = new ServerFixture(config.withNacos(new NacosDoor.Settings(0, 0)), clock);
  }

  String base() {
    return "http://127.0.0.1:" + fixture.server().nacosHttpPort();
  }

  HttpResponse<String> send(String method, String path, Map<String, String> form) throws Exception {
    List<String> pairs = new ArrayList<>();
    form.forEach((key, value) -> pairs.add(URLEncoder.encode(key, StandardCharsets.UTF_8) + "="
        + URLEncoder.encode(value, StandardCharsets.UTF_8)));
    String encoded = String.join("&", pairs);
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + path + (method.equals("GET")
        ? "?" + encoded : "")));
    request = method.equals("GET") ? request.GET() : request.header("Content-Type",
        "application/x-www-form-urlencoded").method(method, HttpRequest.BodyPublishers.ofString(encoded));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  JsonNode list(String version, String service) throws Exception {
    HttpResponse<String> listed = send("GET", "/nacos/" + version + "/ns/instance/list", Map.of("serviceName",
        service));
    assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(listed.body());
    return version.equals("v2") ? body.get("data") : body;
  }

  @Test
  void nacosOnesInstanceLifecycle() throws Exception {
    start(ServerConfig.ephemeralLoopback());
    HttpResponse<String> registered = send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders",
        "ip", "127.0.0.1", "port", "9001", "weight", "2", "metadata", "{\"zone\":\"a\"}"));
    assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
    assertThat(registered.body()).isEqualTo("ok");

    JsonNode view = list("v1", "orders");
    assertThat(view.get("name").asText()).isEqualTo("DEFAULT_GROUP@@orders");
    assertThat(view.get("hosts")).hasSize(1);
    JsonNode host = view.get("hosts").get(0);
    assertThat(host.get("ip").asText()).isEqualTo("127.0.0.1");
    assertThat(host.get("port").asInt()).isEqualTo(9001);
    assertThat(host.get("weight").asDouble()).isEqualTo(2.0);
    assertThat(host.get("healthy").asBoolean()).isTrue();
    assertThat(host.get("metadata").get("zone").asText()).isEqualTo("a");
    assertThat(host.get("serviceName").asText()).isEqualTo("DEFAULT_GROUP@@orders");

    HttpResponse<String> beat = send("PUT", "/nacos/v1/ns/instance/beat", Map.of("serviceName", "orders",
        "beat", "{\"ip\":\"127.0.0.1\",\"port\":9001,\"cluster\":\"DEFAULT\",\"serviceName\":\"DEFAULT_GROUP@@orders\"}"));
    assertThat(JSON.readTree(beat.body()).get("code").asInt()).as(beat.body()).isEqualTo(10200);
    assertThat(JSON.readTree(beat.body()).get("clientBeatInterval").asLong()).isEqualTo(5000);
    HttpResponse<String> unknownBeat = send("PUT", "/nacos/v1/ns/instance/beat", Map.of("serviceName", "orders",
        "ip", "127.0.0.1", "port", "9999"));
    assertThat(JSON.readTree(unknownBeat.body()).get("code").asInt()).as("an unknown instance's beat: register again")
        .isEqualTo(20404);

    HttpResponse<String> detail = send("GET", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip",
        "127.0.0.1", "port", "9001"));
    assertThat(JSON.readTree(detail.body()).get("instanceId").asText()).isEqualTo("127.0.0.1#9001#DEFAULT");

    HttpResponse<String> updated = send("PUT", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip",
        "127.0.0.1", "port", "9001", "weight", "5"));
    assertThat(updated.statusCode()).as(updated.body()).isEqualTo(200);
    assertThat(list("v1", "orders").get("hosts").get(0).get("weight").asDouble()).isEqualTo(5.0);

    HttpResponse<String> services = send("GET", "/nacos/v1/ns/service/list", Map.of("pageNo", "1", "pageSize",
        "10"));
    assertThat(JSON.readTree(services.body()).get("doms").toString()).isEqualTo("[\"orders\"]");
    assertThat(JSON.readTree(services.body()).get("count").asInt()).isEqualTo(1);

    HttpResponse<String> removed = send("DELETE", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip",
        "127.0.0.1", "port", "9001"));
    assertThat(removed.body()).isEqualTo("ok");
    assertThat(list("v1", "orders").get("hosts")).isEmpty();
  }

  @Test
  void nacosTwosFormsAnswerInItsResultShape() throws Exception {
    start(ServerConfig.ephemeralLoopback());
    HttpResponse<String> registered = send("POST", "/nacos/v2/ns/instance", Map.of("serviceName", "orders",
        "groupName", "blue", "namespaceId", "shop", "ip", "127.0.0.1", "port", "9001"));
    assertThat(JSON.readTree(registered.body()).get("code").asInt()).as(registered.body()).isZero();
    assertThat(JSON.readTree(registered.body()).get("data").asText()).isEqualTo("ok");

    HttpResponse<String> listed = send("GET", "/nacos/v2/ns/instance/list", Map.of("serviceName", "orders",
        "groupName", "blue", "namespaceId", "shop"));
    JsonNode data = JSON.readTree(listed.body()).get("data");
    assertThat(data.get("name").asText()).isEqualTo("blue@@orders");
    assertThat(data.get("hosts")).hasSize(1);

    HttpResponse<String> services = send("GET", "/nacos/v2/ns/service/list", Map.of("namespaceId", "shop",
        "groupName", "blue"));
    assertThat(JSON.readTree(services.body()).get("data").get("services").toString()).isEqualTo("[\"orders\"]");

    HttpResponse<String> service = send("GET", "/nacos/v2/ns/service", Map.of("serviceName", "orders", "groupName",
        "blue", "namespaceId", "shop"));
    assertThat(JSON.readTree(service.body()).get("data").get("name").asText()).as(service.body()).isEqualTo("orders");
    HttpResponse<String> missing = send("GET", "/nacos/v2/ns/service", Map.of("serviceName", "nothing"));
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(missing.body()).get("code").asInt()).isEqualTo(20004);
  }

  @Test
  void badInputIsNamedAndChangesNothing() throws Exception {
    start(ServerConfig.ephemeralLoopback());
    send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip", "127.0.0.1", "port", "9001"));

    HttpResponse<String> noService = send("POST", "/nacos/v1/ns/instance", Map.of("ip", "127.0.0.1", "port",
        "9002"));
    assertThat(noService.statusCode()).isEqualTo(400);
    assertThat(noService.body()).isEqualTo("caused: serviceName is required");

    HttpResponse<String> badPort = send("POST", "/nacos/v2/ns/instance", Map.of("serviceName", "orders", "ip",
        "127.0.0.1", "port", "nine"));
    assertThat(badPort.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(badPort.body()).get("code").asInt()).isEqualTo(10000);
    assertThat(JSON.readTree(badPort.body()).get("message").asText()).contains("port").contains("whole number");

    HttpResponse<String> badName = send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "or ders", "ip",
        "127.0.0.1", "port", "9003"));
    assertThat(badName.statusCode()).isEqualTo(400);
    assertThat(badName.body()).contains("service").contains("may contain only");

    HttpResponse<String> badMetadata = send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip",
        "127.0.0.1", "port", "9004", "metadata", "{not json"));
    assertThat(badMetadata.statusCode()).isEqualTo(400);
    assertThat(badMetadata.body()).contains("metadata must be a JSON object");

    HttpResponse<String> unknown = send("GET", "/nacos/v1/ns/operator/metrics", Map.of());
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("no such Nacos API here");

    assertThat(list("v1", "orders").get("hosts")).as("nothing changed").hasSize(1);
  }

  @Test
  void anInstanceRegisteredOverHttpLivesByItsBeats() throws Exception {
    start(ServerConfig.ephemeralLoopback());
    send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip", "127.0.0.1", "port", "9001"));
    send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip", "127.0.0.1", "port", "9002"));
    for (int second = 0; second < 40; second += 5) {
      clock.advance(Duration.ofSeconds(5));
      send("PUT", "/nacos/v1/ns/instance/beat", Map.of("serviceName", "orders", "ip", "127.0.0.1", "port", "9001"));
    }
    // 9002 sent no beat for 40 s: past the 30 s after which an instance without heartbeats is deleted.
    await().atMost(Duration.ofSeconds(10)).until(() -> list("v1", "orders").get("hosts").size() == 1);
    assertThat(list("v1", "orders").get("hosts").get(0).get("port").asInt()).isEqualTo(9001);
  }

  @Test
  void theLoginTakesATokenAsThePasswordAndRequestsCarryIt(@TempDir Path dir) throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, TokenFile.of(Map.of("orders-team-5b6c7d",
        "{\"public\":[\"read\",\"write\"]}")));
    start(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, tokens, null, 1_000_000,
        Duration.ofMinutes(1))));
    HttpResponse<String> refused = send("POST", "/nacos/v1/auth/users/login", Map.of("username", "orders",
        "password", "wrong"));
    assertThat(refused.statusCode()).isEqualTo(401);
    HttpResponse<String> login = send("POST", "/nacos/v1/auth/users/login", Map.of("username", "orders",
        "password", "orders-team-5b6c7d"));
    assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
    String token = JSON.readTree(login.body()).get("accessToken").asText();
    assertThat(JSON.readTree(login.body()).get("tokenTtl").asLong()).isPositive();

    HttpResponse<String> anonymous = send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip",
        "127.0.0.1", "port", "9001"));
    assertThat(anonymous.statusCode()).isEqualTo(401);
    HttpResponse<String> registered = send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders", "ip",
        "127.0.0.1", "port", "9001", "accessToken", token));
    assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
    HttpResponse<String> elsewhere = send("POST", "/nacos/v1/ns/instance", Map.of("serviceName", "orders",
        "namespaceId", "billing", "ip", "127.0.0.1", "port", "9001", "accessToken", token));
    assertThat(elsewhere.statusCode()).isEqualTo(403);
    assertThat(elsewhere.body()).contains("orders-team").contains("billing");
  }
}
