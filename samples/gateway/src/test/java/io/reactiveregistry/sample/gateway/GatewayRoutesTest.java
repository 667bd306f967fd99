package io.reactiveregistry.sample.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.client.Registration;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The sample gateway against a real registry, with no route configured and no polling interval:
 * a service registered after the gateway started is routed within a second, and one that goes
 * (its last instance deregistered, then the service deleted) stops being routed within a second.
 */
class GatewayRoutesTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration AT_ONCE = Duration.ofSeconds(1);
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aServiceIsRoutedWithinASecondOfAppearingAndStopsBeingRoutedWithinASecondOfGoing() throws Exception {
    RegistryServer registry = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(WAIT);
    AtomicInteger served = new AtomicInteger();
    DisposableServer backend = HttpServer.create().host("127.0.0.1").port(0)
        .route(routes -> routes.get("/greet", (request, response) -> {
          served.incrementAndGet();
          return response.sendString(Mono.just("hello from the backend"));
        }))
        .bindNow();
    ConfigurableApplicationContext gateway = new SpringApplicationBuilder(GatewayMain.class).run("--server.port=0",
        "--reactive-registry.servers=tcp://127.0.0.1:" + registry.tcpPort(), "--spring.main.banner-mode=off",
        "--logging.level.root=WARN");
    RegistryClient owner = RegistryClient.builder().servers("tcp://127.0.0.1:" + registry.tcpPort())
        .clientName("hello-owner").build();
    try {
      int port = ((WebServerApplicationContext) gateway).getWebServer().getPort();
      URI greet = URI.create("http://127.0.0.1:" + port + "/hello/greet");
      assertThat(get(greet).statusCode()).as("no such service yet").isEqualTo(404);
      // A first service routed with time to spare: the gateway's first route and first call load
      // and compile what every later one uses, which is not what the second below measures.
      owner.register(ServiceName.of("warm-up"), InstanceBody.of("127.0.0.1", backend.port(), null, 1.0, Map.of()))
          .block(WAIT);
      URI warmUp = URI.create("http://127.0.0.1:" + port + "/warm-up/greet");
      await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> get(warmUp).statusCode() == 200);

      Registration hello = owner.register(ServiceName.of("hello"), InstanceBody.of("127.0.0.1", backend.port(), null,
          1.0, Map.of())).block(WAIT);
      await().atMost(AT_ONCE).pollInterval(Duration.ofMillis(20)).until(() -> get(greet).statusCode() == 200);
      assertThat(get(greet).body()).isEqualTo("hello from the backend");

      hello.deregister().block(WAIT); // no instance left: the route goes with it
      await().atMost(AT_ONCE).pollInterval(Duration.ofMillis(20)).until(() -> get(greet).statusCode() == 404);
      int before = served.get();
      assertThat(get(greet).statusCode()).isEqualTo(404);
      assertThat(served.get()).as("nothing reaches the backend any more").isEqualTo(before);

      HttpResponse<String> deleted = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + registry.httpPort() + "/api/v1/admin.service.delete")).POST(HttpRequest.BodyPublishers.ofString(
          "{\"service\":\"hello\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
      assertThat(get(greet).statusCode()).isEqualTo(404);
    } finally {
      owner.closeAndWait();
      gateway.close();
      backend.disposeNow();
      registry.disposeNow(WAIT);
    }
  }

  /** The README shows the gateway's whole configuration, as the sample has it (comments aside). */
  @Test
  void theReadmeShowsTheGatewaysWholeConfiguration() throws Exception {
    List<String> configured = Files.readAllLines(Path.of("src/main/resources/application.properties")).stream()
        .filter(line -> !line.isBlank() && !line.startsWith("#")).toList();
    String readme = Files.readString(Path.of("../../README.md"));
    int section = readme.indexOf("\n### A gateway fed by push\n");
    assertThat(section).isNotNegative();
    int open = readme.indexOf("```properties\n", section) + "```properties\n".length();
    assertThat(readme.substring(open, readme.indexOf("\n```", open)).lines().toList()).isEqualTo(configured);
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(HttpRequest.newBuilder(uri).timeout(WAIT).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
