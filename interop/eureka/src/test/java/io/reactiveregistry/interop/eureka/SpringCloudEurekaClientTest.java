package io.reactiveregistry.interop.eureka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.Disposable;

/**
 * A Spring Boot application using Spring Cloud Netflix's Eureka client (from Maven Central,
 * unchanged) against a real server's Eureka door: it registers, renews and fetches the registry in
 * full and then by deltas whose hash it reconciles; it sees what an RSocket client registers and
 * loses it when that connection closes; an RSocket subscriber is pushed its registration, its
 * OUT_OF_SERVICE from {@code /actuator/serviceregistry} and its cancel at shutdown.
 */
class SpringCloudEurekaClientTest {
  static final Duration WAIT = Duration.ofSeconds(20);
  RegistryServer server;
  RegistryClient rsocket;
  ConfigurableApplicationContext app;

  @BeforeEach
  void start() {
    server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(WAIT);
    rsocket = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort()).clientName("witness").build();
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    rsocket.closeAndWait();
    server.disposeNow(WAIT);
  }

  @Test
  void aSpringCloudEurekaApplicationRegistersFetchesReconcilesAndIsPushedToRSocketSubscribers() throws Exception {
    List<ServiceEvent> pushed = new CopyOnWriteArrayList<>();
    Disposable subscription = rsocket.events(ServiceName.of("orders"), null, false).subscribe(pushed::add);
    try {
      app = EurekaApp.start("http://127.0.0.1:" + server.httpPort() + "/eureka/", "orders", "orders-test-1");
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();

      // Registered: the RSocket subscriber is pushed the instance, with the id its client chose.
      await().atMost(WAIT).until(() -> upserted(pushed, "orders-test-1") != null);
      InstanceBody registered = upserted(pushed, "orders-test-1");
      assertThat(registered.ip()).isEqualTo("127.0.0.1");
      assertThat(registered.port()).isEqualTo(port);
      assertThat(registered.enabled()).isTrue();

      // The application sees itself, and what an RSocket client registers, through Eureka's fetches.
      DiscoveryClient discovery = app.getBean(DiscoveryClient.class);
      await().atMost(WAIT).until(() -> discovery.getInstances("orders").stream()
          .anyMatch(instance -> instance.getPort() == port));
      RegistryClient inventory = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort())
          .clientName("inventory").build();
      long fullFetches = fetches("full");
      long deltaFetches = fetches("delta");
      inventory.register(ServiceName.of("inventory"), InstanceBody.of("127.0.0.1", 9999, "DEFAULT", 1.0,
          Map.of("lang", "rsocket"))).block(WAIT);
      await().atMost(WAIT).until(() -> discovery.getInstances("inventory").stream()
          .anyMatch(instance -> instance.getPort() == 9999 && "rsocket".equals(instance.getMetadata().get("lang"))));
      inventory.closeAndWait();
      await().atMost(WAIT).until(() -> discovery.getInstances("inventory").isEmpty());
      // Both changes reached it by deltas whose hash matched: no full fetch was forced.
      await().atMost(WAIT).until(() -> fetches("delta") >= deltaFetches + 3);
      assertThat(fetches("full")).as("full fetches forced by a hash mismatch").isEqualTo(fullFetches);

      // OUT_OF_SERVICE from the actuator: the override, enabled:false, pushed at once; and lifted.
      assertThat(actuator(port, "{\"status\":\"OUT_OF_SERVICE\"}")).isEqualTo(200);
      await().atMost(WAIT).until(() -> {
        InstanceBody now = upserted(pushed, "orders-test-1");
        return now != null && Boolean.FALSE.equals(now.enabled());
      });
      await().atMost(WAIT).until(() -> discovery.getInstances("orders").stream()
          .noneMatch(instance -> instance.getPort() == port));
      assertThat(actuator(port, "{\"status\":\"CANCEL_OVERRIDE\"}")).isEqualTo(200);
      await().atMost(WAIT).until(() -> Boolean.TRUE.equals(upserted(pushed, "orders-test-1").enabled()));

      // A graceful shutdown cancels: the subscriber is pushed the removal.
      String id = upserted(pushed, "orders-test-1").instanceId();
      app.close();
      app = null;
      await().atMost(WAIT).until(() -> pushed.stream().anyMatch(event -> ServiceEvent.REMOVE.equals(event.type())
          && id.equals(event.instanceId())));
    } finally {
      subscription.dispose();
    }
  }

  /** The latest UPSERT of the instance whose Eureka id is {@code eurekaId}; null when none came. */
  static InstanceBody upserted(List<ServiceEvent> events, String eurekaId) {
    InstanceBody latest = null;
    for (ServiceEvent event : events) {
      if (ServiceEvent.UPSERT.equals(event.type()) && eurekaId.equals(event.instance().metadata()
          .get("eureka.instanceId"))) {
        latest = event.instance();
      } else if (ServiceEvent.SNAPSHOT.equals(event.type())) {
        for (InstanceBody instance : event.instances()) {
          if (eurekaId.equals(instance.metadata().get("eureka.instanceId"))) {
            latest = instance;
          }
        }
      }
    }
    return latest;
  }

  long fetches(String kind) {
    Counter counter = server.meters().find("registry.eureka.fetches").tag("kind", kind).counter();
    return counter == null ? 0 : (long) counter.count();
  }

  static int actuator(int port, String body) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/actuator/serviceregistry"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }
}
