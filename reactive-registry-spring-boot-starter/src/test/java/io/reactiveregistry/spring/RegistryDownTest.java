package io.reactiveregistry.spring;

import static io.reactiveregistry.spring.TestApps.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.spring.health.RegistryHealthIndicator;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.ConfigurableApplicationContext;

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
}
