package io.reactiveregistry.spring;

import static io.reactiveregistry.spring.TestApps.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.e2e.WireClient;
import io.reactiveregistry.spring.discovery.ServiceViews;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A load-balanced {@code WebClient} to {@code lb://orders}: it reaches only instances that serve
 * traffic, and follows an operator's change within a second.
 */
class LoadBalancerTest {
  private RegistryServer server;
  private WireClient operator;
  private ConfigurableApplicationContext first;
  private ConfigurableApplicationContext second;
  private ConfigurableApplicationContext caller;

  @BeforeEach
  void start() {
    server = TestApps.server(0);
    operator = WireClient.connect(server.tcpPort(), "operator");
    first = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort());
    second = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort());
    caller = TestApps.start(TestApps.Caller.class, "caller", server.tcpPort(),
        "reactive-registry.registration.enabled=false");
  }

  @AfterEach
  void stop() {
    caller.close();
    second.close();
    first.close();
    operator.close();
    server.disposeNow(WAIT);
  }

  @Test
  void callsReachOnlyInstancesThatServeFollowAnOperatorsChangeWithinASecondAndShareByWeight() {
    int firstPort = TestApps.port(first);
    int secondPort = TestApps.port(second);
    // Three instances no call may reach (nothing listens on their ports): disabled, weight 0, and
    // unhealthy (its owner never heartbeats: unhealthy after 1 s, removed only after a minute).
    operator.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":1,"
        + "\"enabled\":false}}");
    operator.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":2,"
        + "\"weight\":0}}");
    operator.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":3,"
        + "\"metadata\":{\"preserved.heart.beat.timeout\":\"1000\",\"preserved.ip.delete.timeout\":\"60000\"}}}");
    ServiceViews views = caller.getBean(ServiceViews.class);
    await().atMost(WAIT).until(() -> views.current("orders", false).block(WAIT).instances().size() == 5
        && views.current("orders", true).block(WAIT).instances().stream().noneMatch(i -> i.port() == 3));

    WebClient orders = caller.getBean(WebClient.Builder.class).baseUrl("http://orders").build();
    Set<Integer> reached = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      reached.add(whoami(orders));
    }
    assertThat(reached).containsExactlyInAnyOrder(firstPort, secondPort);

    long patched = System.nanoTime();
    operator.call("admin.instance.patch", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":"
        + firstPort + "},\"enabled\":false}");
    await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(5)).until(() ->
        views.latest("orders", true).orElseThrow().instances().stream().noneMatch(i -> i.port() == firstPort));
    assertThat(Duration.ofNanos(System.nanoTime() - patched)).isLessThan(Duration.ofSeconds(1));
    for (int i = 0; i < 40; i++) {
      assertThat(whoami(orders)).isEqualTo(secondPort);
    }

    operator.call("admin.instance.patch", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":"
        + firstPort + "},\"enabled\":true}");
    await().atMost(WAIT).until(() -> whoami(orders) == firstPort);

    // Weights share the calls: 9 to 1.
    operator.call("admin.instance.patch", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":"
        + firstPort + "},\"weight\":9}");
    await().atMost(WAIT).until(() -> views.current("orders", true).block(WAIT).instances().stream()
        .anyMatch(i -> i.port() == firstPort && i.weight() == 9.0));
    int toFirst = 0;
    for (int i = 0; i < 400; i++) {
      toFirst += whoami(orders) == firstPort ? 1 : 0;
    }
    // 90 % expected: 360 of 400, with a standard deviation of 6.
    assertThat(toFirst).isBetween(320, 395);
  }

  /**
   * A preferred cluster takes the calls while it has instances that serve; a service's selector
   * ({@code reactive-registry.discovery.selectors.orders}) narrows them to the instances it
   * selects (here a canary, by its metadata); a caller with neither calls every instance.
   */
  @Test
  void thePreferredClusterTakesTheCallsWhileItHasInstancesThatServeAndASelectorNarrowsThem() {
    ConfigurableApplicationContext eu = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort(),
        "reactive-registry.registration.cluster=eu", "reactive-registry.registration.metadata.track=canary");
    ConfigurableApplicationContext euCaller = TestApps.start(TestApps.Caller.class, "eu-caller", server.tcpPort(),
        "reactive-registry.registration.enabled=false", "reactive-registry.discovery.preferred-cluster=eu");
    ConfigurableApplicationContext canaryCaller = TestApps.start(TestApps.Caller.class, "canary-caller",
        server.tcpPort(), "reactive-registry.registration.enabled=false",
        "reactive-registry.discovery.selectors.orders=track in (canary)");
    try {
      int euPort = TestApps.port(eu);
      WebClient orders = euCaller.getBean(WebClient.Builder.class).baseUrl("http://orders").build();
      WebClient canaries = canaryCaller.getBean(WebClient.Builder.class).baseUrl("http://orders").build();
      await().atMost(WAIT).until(() -> whoami(orders) == euPort);
      await().atMost(WAIT).until(() -> whoami(canaries) == euPort);
      for (int i = 0; i < 30; i++) {
        assertThat(whoami(orders)).isEqualTo(euPort);
        assertThat(whoami(canaries)).isEqualTo(euPort);
      }
      // The other callers have no preference: every instance of orders.
      WebClient anyCluster = caller.getBean(WebClient.Builder.class).baseUrl("http://orders").build();
      Set<Integer> reached = new HashSet<>();
      await().atMost(WAIT).until(() -> {
        reached.add(whoami(anyCluster));
        return reached.size() == 3;
      });

      // The preferred cluster empty: calls go to the others.
      eu.close();
      await().atMost(WAIT).until(() -> whoami(orders) != euPort);
      for (int i = 0; i < 20; i++) {
        assertThat(whoami(orders)).isIn(TestApps.port(first), TestApps.port(second));
      }
    } finally {
      canaryCaller.close();
      euCaller.close();
      eu.close();
    }
  }

  private static int whoami(WebClient orders) {
    return Integer.parseInt(orders.get().uri("/whoami").retrieve().bodyToMono(String.class).block(WAIT));
  }
}
