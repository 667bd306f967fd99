package io.reactiveregistry.spring;

import static io.reactiveregistry.spring.TestApps.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.e2e.AtOnce;
import io.reactiveregistry.spring.health.RegistryHealthIndicator;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** An application starts while the registry is down, keeps trying, and registers once it is up. */
class RegistryDownTest {

  @Test
  void theApplicationStartsWithoutTheRegistryAndRegistersWhenItComesUp() {
    int registryPort = TestApps.freePort();
    long starting = System.nanoTime();
    ConfigurableApplicationContext orders = TestApps.start(TestApps.Whoami.class, "orders", registryPort,
        "reactive-registry.request-timeout=1s");
    RegistryServer server = null;
    RegistryClient witness = null;
    try {
      // Started without waiting for the registry, and says it is not connected.
      assertThat(Duration.ofNanos(System.nanoTime() - starting)).isLessThan(WAIT);
      RegistryHealthIndicator health = orders.getBean(RegistryHealthIndicator.class);
      assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN);
      // Discovery answers (nothing), rather than failing the caller.
      assertThat(orders.getBean(DiscoveryClient.class).getServices()).isEmpty();

      server = TestApps.server(registryPort);
      witness = RegistryClient.builder().servers("tcp://127.0.0.1:" + registryPort).clientName("witness").build();
      RegistryClient registry = witness;
      int port = TestApps.port(orders);
      await().atMost(WAIT).until(() -> registry.query(ServiceName.of("orders")).block(WAIT).instances().stream()
          .anyMatch(instance -> instance.port() == port));
      await().atMost(WAIT).until(() -> health.health(true).getStatus().equals(Status.UP));
    } finally {
      orders.close();
      if (witness != null) {
        witness.closeAndWait();
      }
      if (server != null) {
        server.disposeNow(WAIT);
      }
    }
  }

  /**
   * With every member killed, what Kubernetes' probes and callers ask of a running application
   * answers at once from the last views: {@code /actuator/health} (Spring Cloud's discovery health
   * calls {@code getServices()}), {@code getServices()} and {@code getInstances()}. A probe's
   * default timeout is 1 s; waiting out the 10 s request timeout would restart every application.
   */
  @Test
  void withEveryMemberKilledHealthAndDiscoveryAnswerAtOnceFromTheLastViews() {
    int registryPort = TestApps.freePort();
    RegistryServer server = TestApps.server(registryPort);
    ConfigurableApplicationContext orders = TestApps.start(TestApps.Whoami.class, "orders", registryPort,
        "reactive-registry.request-timeout=10s");
    try {
      DiscoveryClient discovery = orders.getBean(DiscoveryClient.class);
      int port = TestApps.port(orders);
      await().atMost(WAIT).until(() -> discovery.getInstances("orders").stream()
          .anyMatch(instance -> instance.getPort() == port));
      assertThat(discovery.getServices()).contains("orders");

      server.disposeNow(WAIT);
      RegistryClient client = orders.getBean(RegistryClient.class);
      await().atMost(WAIT).until(client::isUnreachable);

      WebClient web = WebClient.create("http://127.0.0.1:" + port);
      String health = AtOnce.answer(() -> web.get().uri("/actuator/health").retrieve()
          .onStatus(status -> status.value() == 503, response -> Mono.empty())
          .bodyToMono(String.class).block(WAIT));
      assertThat(health).contains("\"reactiveRegistry\"").contains("\"connected\":false")
          .contains("\"orders\"");
      assertThat(AtOnce.answer(discovery::getServices)).containsExactly("orders");
      assertThat(AtOnce.answer(() -> discovery.getInstances("orders"))).extracting(ServiceInstance::getPort)
          .containsExactly(port);
    } finally {
      orders.close();
      server.disposeNow(WAIT);
    }
  }
}
