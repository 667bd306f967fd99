package io.reactiveregistry.spring;

import static io.reactiveregistry.spring.TestApps.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactiveregistry.client.Registration;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.spring.discovery.ServiceViews;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.discovery.ReactiveDiscoveryClient;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.reactive.function.client.WebClient;

/** The starter in real Spring Boot applications against a real registry server, over a real socket. */
class SpringStarterTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");

  private RegistryServer server;
  private RegistryClient witness;

  @BeforeEach
  void startServer() {
    server = TestApps.server(0);
    witness = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort()).clientName("witness").build();
  }

  @AfterEach
  void stopServer() {
    witness.closeAndWait();
    server.disposeNow(WAIT);
  }

  /**
   * A service that appears or goes after the application started reaches it as Spring Cloud's
   * HeartbeatEvent within a second (what Spring Cloud Gateway's discovery locator refreshes its
   * routes on), and getServices() answers from the pushed catalog: no polling interval.
   */
  @Test
  void aServiceThatAppearsOrGoesIsAHeartbeatEventAndInGetServicesAtOnce() {
    ConfigurableApplicationContext caller = TestApps.start(TestApps.Caller.class, "caller", server.tcpPort());
    List<HeartbeatEvent> heartbeats = new CopyOnWriteArrayList<>();
    caller.addApplicationListener((ApplicationListener<HeartbeatEvent>) heartbeats::add);
    try {
      DiscoveryClient discovery = caller.getBean(DiscoveryClient.class);
      await().atMost(WAIT).until(() -> discovery.getServices().contains("caller"));
      int before = heartbeats.size();

      Registration billing = witness.register(ServiceName.of("billing"), InstanceBody.of("127.0.0.1", 9090, null, 1.0,
          java.util.Map.of())).block(WAIT);
      await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20))
          .until(() -> heartbeats.size() > before && discovery.getServices().contains("billing"));

      int registered = heartbeats.size();
      billing.deregister().block(WAIT); // its instance count changes: another heartbeat
      await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20)).until(() -> heartbeats.size() > registered);
      assertThat(heartbeats).extracting(HeartbeatEvent::getValue).isSortedAccordingTo(
          (a, b) -> Long.compare((Long) a, (Long) b));
    } finally {
      caller.close();
    }
  }

  @Test
  void anApplicationRegistersOnStartAndIsGoneFromAnotherApplicationsViewBeforeItsGracefulShutdownEnds() {
    ConfigurableApplicationContext orders = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort(),
        "reactive-registry.registration.metadata.version=2", "server.shutdown=graceful");
    ConfigurableApplicationContext caller = TestApps.start(TestApps.Caller.class, "caller", server.tcpPort());
    try {
      int port = TestApps.port(orders);
      await().atMost(WAIT).until(() -> ports(witness.query(ORDERS).block(WAIT)).contains(port));
      InstanceBody registered = witness.query(ORDERS).block(WAIT).instances().get(0);
      assertThat(registered.ip()).isEqualTo("127.0.0.1");
      assertThat(registered.metadata()).containsEntry("version", "2");
      assertThat(registered.cluster()).isEqualTo("DEFAULT");

      ServiceViews callerViews = caller.getBean(ServiceViews.class);
      ReactiveDiscoveryClient discovery = caller.getBean(ReactiveDiscoveryClient.class);
      await().atMost(WAIT).until(() -> discovery.getInstances("orders").collectList().block(WAIT).size() == 1);

      // The rule: the instance is deregistered as the shutdown begins, before the web server drains
      // (and is kept serving deregister-grace after), and the change is pushed. So the caller's view
      // loses it while the application is still closing: an order, which a busy machine cannot
      // turn around, where a fixed second could be missed by a slow context close.
      Thread closing = new Thread(orders::close, "orders-shutdown");
      boolean[] stillClosingWhenGone = new boolean[1];
      closing.start();
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> {
        boolean alive = closing.isAlive();
        boolean gone = callerViews.latest("orders", false).map(view -> view.instances().isEmpty()).orElse(false);
        stillClosingWhenGone[0] = alive;
        return gone;
      });
      assertThat(stillClosingWhenGone[0]).as("gone from the caller's view before the application finished closing")
          .isTrue();
      await().atMost(WAIT).until(() -> !closing.isAlive());
      assertThat(witness.query(ORDERS).block(WAIT).instances()).isEmpty();
    } finally {
      orders.close();
      caller.close();
    }
  }

  @Test
  void discoveryClientsReturnTheInstancesTheRegistrysQueryReturns() {
    ConfigurableApplicationContext first = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort(),
        "reactive-registry.registration.weight=2.5", "reactive-registry.registration.cluster=eu");
    ConfigurableApplicationContext second = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort());
    ConfigurableApplicationContext caller = TestApps.start(TestApps.Caller.class, "caller", server.tcpPort());
    try {
      await().atMost(WAIT).until(() -> witness.query(ORDERS).block(WAIT).instances().size() == 2);
      ServiceSnapshot query = witness.query(ORDERS).block(WAIT);

      DiscoveryClient blocking = caller.getBean(DiscoveryClient.class);
      ReactiveDiscoveryClient reactive = caller.getBean(ReactiveDiscoveryClient.class);
      List<ServiceInstance> fromBlocking = sorted(blocking.getInstances("orders"));
      List<ServiceInstance> fromReactive = sorted(reactive.getInstances("orders").collectList().block(WAIT));

      List<InstanceBody> expected = query.instances().stream()
          .sorted(Comparator.comparing(InstanceBody::instanceId)).toList();
      for (List<ServiceInstance> instances : List.of(fromBlocking, fromReactive)) {
        assertThat(instances).extracting(ServiceInstance::getInstanceId)
            .containsExactlyElementsOf(expected.stream().map(InstanceBody::instanceId).toList());
        assertThat(instances).extracting(ServiceInstance::getHost).containsOnly("127.0.0.1");
        assertThat(instances).extracting(ServiceInstance::getPort)
            .containsExactlyElementsOf(expected.stream().map(InstanceBody::port).toList());
        assertThat(instances).extracting(instance -> instance.getMetadata().get("cluster"))
            .containsExactlyElementsOf(expected.stream().map(InstanceBody::cluster).toList());
      }
      assertThat(fromBlocking).extracting(instance -> instance.getMetadata().get("weight"))
          .containsExactlyInAnyOrder("2.5", "1.0");
      assertThat(blocking.getServices()).contains("orders", "caller");
      assertThat(reactive.getServices().collectList().block(WAIT)).contains("orders", "caller");

      // A service nobody has registered is an empty list, not an error.
      assertThat(blocking.getInstances("nobody")).isEmpty();
    } finally {
      first.close();
      second.close();
      caller.close();
    }
  }

  /**
   * The client's meters and health are the application's; {@code /actuator/serviceregistry} (Spring
   * Cloud's ServiceRegistry.setStatus) takes the instance out of traffic and puts it back, as
   * every other application's view shows.
   */
  @Test
  void theClientsMetersAndHealthAreTheApplicationsAndTheServiceRegistryEndpointSetsItsStatus() {
    ConfigurableApplicationContext orders = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort(),
        "management.endpoints.web.exposure.include=health,serviceregistry");
    try {
      MeterRegistry meters = orders.getBean(MeterRegistry.class);
      await().atMost(WAIT).until(() -> meters.find("registry.client.registrations").gauge() != null
          && meters.find("registry.client.registrations").gauge().value() == 1.0);
      assertThat(meters.find("registry.client.connected").gauge().value()).isEqualTo(1.0);

      String health = WebClient.create("http://127.0.0.1:" + TestApps.port(orders)).get().uri("/actuator/health")
          .retrieve().bodyToMono(String.class).block(WAIT);
      assertThat(health).contains("\"reactiveRegistry\"").contains("\"connected\":true")
          .contains("\"registrationsActive\":1");

      WebClient actuator = WebClient.create("http://127.0.0.1:" + TestApps.port(orders) + "/actuator/serviceregistry");
      assertThat(actuator.get().retrieve().bodyToMono(String.class).block(WAIT)).isEqualTo("UP");
      actuator.post().contentType(org.springframework.http.MediaType.APPLICATION_JSON)
          .bodyValue("{\"status\":\"OUT_OF_SERVICE\"}").retrieve().toBodilessEntity().block(WAIT);
      InstanceBody out = witness.query(ORDERS).block(WAIT).instances().get(0);
      assertThat(out.enabled()).isFalse();
      assertThat(out.metadata()).containsEntry("registry.status", "OUT_OF_SERVICE");
      assertThat(witness.query(ORDERS, List.of(), true).block(WAIT).instances()).as("out of traffic").isEmpty();
      assertThat(actuator.get().retrieve().bodyToMono(String.class).block(WAIT)).isEqualTo("OUT_OF_SERVICE");

      actuator.post().contentType(org.springframework.http.MediaType.APPLICATION_JSON)
          .bodyValue("{\"status\":\"up\"}").retrieve().toBodilessEntity().block(WAIT);
      InstanceBody back = witness.query(ORDERS, List.of(), true).block(WAIT).instances().get(0);
      assertThat(back.enabled()).isTrue();
      assertThat(back.metadata()).doesNotContainKey("registry.status");
    } finally {
      orders.close();
    }
  }

  private static Set<Integer> ports(ServiceSnapshot snapshot) {
    return snapshot.instances().stream().map(InstanceBody::port).collect(Collectors.toSet());
  }

  private static List<ServiceInstance> sorted(List<ServiceInstance> instances) {
    return instances.stream().sorted(Comparator.comparing(ServiceInstance::getInstanceId)).toList();
  }
}
