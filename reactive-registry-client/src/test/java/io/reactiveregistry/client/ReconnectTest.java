package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceStatus;
import io.reactiveregistry.server.RegistryServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** A server restart and a failover must not drop a registration or empty a view. */
class ReconnectTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(15);

  private static RegistryClient client(String... servers) {
    return RegistryClient.builder().servers(servers).clientName("app")
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)).build();
  }

  private static List<String> ips(ServiceView view) {
    return view.instances().stream().map(InstanceBody::ip).sorted().toList();
  }

  @Test
  void afterARestartOnTheSamePortRegistrationsReappearAndWatchesConverge() {
    RegistryServer first = TestServers.start(0);
    int port = first.tcpPort();
    String address = TestServers.address(first);
    io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    RegistryClient app = RegistryClient.builder().servers(address).clientName("app").meterRegistry(meters)
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)).build();
    RegistryClient gateway = client(address);
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
    Registration draining = app.register(ORDERS, InstanceBody.of("127.0.0.6", 8080, null, 1.0, Map.of())).block(WAIT);
    // Its owner takes 127.0.0.6 out of traffic: the status is part of what is registered again.
    draining.setStatus(InstanceStatus.OUT_OF_SERVICE).block(WAIT);
    assertThat(draining.status()).isEqualTo(InstanceStatus.OUT_OF_SERVICE);
    List<ServiceView> views = new CopyOnWriteArrayList<>();
    Disposable watch = gateway.watch(ORDERS).subscribe(views::add);
    await().atMost(WAIT).until(() -> !views.isEmpty() && ips(views.get(views.size() - 1)).size() == 2);
    assertThat(gateway.query(ORDERS, List.of(), true).block(WAIT).instances()).extracting(InstanceBody::ip)
        .containsExactly("127.0.0.5");

    first.disposeNow(Duration.ofSeconds(5));
    await().atMost(WAIT).until(() -> views.get(views.size() - 1).stale());
    RegistryServer second = TestServers.start(port);
    try {
      await().atMost(WAIT).untilAsserted(() -> {
        ServiceView latest = views.get(views.size() - 1);
        assertThat(latest.stale()).isFalse();
        assertThat(ips(latest)).containsExactly("127.0.0.5", "127.0.0.6");
      });
      // While the server was away the watch never showed an empty view.
      assertThat(views).allSatisfy(view -> assertThat(view.instances()).isNotEmpty());
      assertThat(app.query(ORDERS).block(WAIT).instances()).hasSize(2);
      InstanceBody redone = app.query(ORDERS).block(WAIT).instances().stream()
          .filter(instance -> instance.ip().equals("127.0.0.6")).findFirst().orElseThrow();
      assertThat(redone.enabled()).as("registered again out of service").isFalse();
      assertThat(redone.metadata()).containsEntry(InstanceStatus.METADATA_KEY, "OUT_OF_SERVICE");
      draining.setStatus(InstanceStatus.UP).block(WAIT);
      assertThat(app.query(ORDERS, List.of(), true).block(WAIT).instances()).hasSize(2);
      // Its meters tell the story: connected again, after one reconnect, with nothing failed on the way.
      assertThat(meters.get("registry.client.connected").gauge().value()).isEqualTo(1.0);
      assertThat(meters.get("registry.client.reconnects").counter().count()).isGreaterThanOrEqualTo(1.0);
      assertThat(meters.get("registry.client.registrations").gauge().value()).isEqualTo(2.0);
      // Each request's round trip, by route and outcome, as a histogram with the server's buckets.
      io.micrometer.core.instrument.Timer queries = meters.get("registry.client.requests")
          .tags("route", "service.query", "outcome", "ok").timer();
      assertThat(queries.count()).isGreaterThanOrEqualTo(3);
      io.micrometer.core.instrument.distribution.CountAtBucket[] buckets = queries.takeSnapshot().histogramCounts();
      assertThat(buckets).hasSize(io.reactiveregistry.protocol.LatencyBuckets.all().length);
      io.micrometer.core.instrument.distribution.CountAtBucket last = buckets[buckets.length - 1];
      assertThat(last.bucket(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(5.0);
      assertThat(last.count()).as("within 5 s, cumulative").isEqualTo(queries.count());
      assertThat(meters.get("registry.client.requests").tags("route", "instance.register", "outcome", "ok").timer()
          .count()).isGreaterThanOrEqualTo(2);
    } finally {
      watch.dispose();
      app.closeAndWait();
      gateway.closeAndWait();
      second.disposeNow(Duration.ofSeconds(5));
    }
  }

  @Test
  void whenItsServerStopsTheClientFailsOverToTheNextOneAndRegistersAgain() {
    RegistryServer a = TestServers.start(0);
    RegistryServer b = TestServers.start(0);
    RegistryClient app = client(TestServers.address(a), TestServers.address(b));
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
    RegistryServer serving = a.openConnections() == 1 ? a : b;
    RegistryServer standby = serving == a ? b : a;
    RegistryClient watcher = client(TestServers.address(standby));
    try {
      serving.disposeNow(Duration.ofSeconds(5));

      await().atMost(WAIT).untilAsserted(() ->
          assertThat(watcher.query(ORDERS).block(WAIT).instances()).extracting(InstanceBody::ip)
              .containsExactly("127.0.0.5"));
      assertThat(app.isConnected()).isTrue();
    } finally {
      app.closeAndWait();
      watcher.closeAndWait();
      standby.disposeNow(Duration.ofSeconds(5));
    }
  }
}
