package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.e2e.AtOnce;
import io.reactiveregistry.server.e2e.WireClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/** The client against a real server over loopback. */
class RegistryClientTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final RegistryServer server = TestServers.start(0);
  private final List<RegistryClient> clients = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    clients.forEach(RegistryClient::closeAndWait);
    server.disposeNow(Duration.ofSeconds(5));
  }

  private RegistryClient client(String name) {
    return client(RegistryClient.builder().servers(TestServers.address(server)).clientName(name));
  }

  private RegistryClient client(RegistryClient.Builder builder) {
    RegistryClient client = builder.build();
    clients.add(client);
    return client;
  }

  private static InstanceBody instance(String ip, int port) {
    return InstanceBody.of(ip, port, null, 1.0, Map.of());
  }

  @Test
  void aClientOnTheWebSocketEndpointRegistersAndWatches() {
    RegistryClient overWebSocket = client(RegistryClient.builder()
        .servers("ws://127.0.0.1:" + server.webSocketPort() + "/rsocket").clientName("ws-app"));
    RegistryClient overTcp = client("tcp-app");
    overWebSocket.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
    overTcp.register(ORDERS, InstanceBody.of("127.0.0.5", 8081, null, 1.0, Map.of())).block(WAIT);

    assertThat(overWebSocket.watch(ORDERS).filter(view -> view.instances().size() == 2).blockFirst(WAIT).instances())
        .extracting(InstanceBody::port).containsExactlyInAnyOrder(8080, 8081);
    assertThatThrownBy(() -> RegistryClient.builder().servers("http://127.0.0.1:7080"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ws://127.0.0.1:7071/rsocket");
  }

  @Test
  void servicesListsTheNamespacesServicesWithTheirCounts() {
    RegistryClient app = client("app");
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8081, null, 1.0, Map.of())).block(WAIT);
    app.register(new ServiceName("public", "billing", "invoices"), InstanceBody.of("127.0.0.6", 80, null, 1.0,
        Map.of())).block(WAIT);

    assertThat(app.services("public", null).collectList().block(WAIT))
        .extracting(ServiceSummary::group, ServiceSummary::service, ServiceSummary::instanceCount)
        .containsExactlyInAnyOrder(tuple("DEFAULT_GROUP", "orders", 2), tuple("billing", "invoices", 1));
    assertThat(app.services("public", "billing").collectList().block(WAIT))
        .extracting(ServiceSummary::service).containsExactly("invoices");
    assertThat(app.services("elsewhere", null).collectList().block(WAIT)).isEmpty();
  }

  @Test
  void heartbeatsReachTheServerAtTheIntervalItReturned() {
    RegistryServer slower = RegistryServer.start(ServerConfig.ephemeralLoopback()
        .withHeartbeat(new HeartbeatTimings(500, 3_000, 6_000))).block(WAIT);
    RegistryClient app = RegistryClient.builder().servers(TestServers.address(slower)).build();
    try {
      Registration registration = app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);
      assertThat(registration.heartbeatInterval()).isEqualTo(Duration.ofMillis(500));

      double before = slower.meters().get("registry.heartbeats").counter().count();
      await().pollDelay(Duration.ofSeconds(3)).atMost(WAIT).until(() -> true);
      double received = slower.meters().get("registry.heartbeats").counter().count() - before;
      // One every 500 ms, sent on the client's 250 ms tick: 4 to 6 in 3 s; allow one either way.
      assertThat(received).isBetween(3.0, 7.0);
    } finally {
      app.closeAndWait();
      slower.disposeNow(Duration.ofSeconds(5));
    }
  }

  @Test
  void aRegistrationStaysAliveByHeartbeatsPastItsDeleteTimeout() {
    RegistryClient app = client("orders-app");

    Registration registration = app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);

    assertThat(registration.instanceId()).isEqualTo("127.0.0.5#8080#DEFAULT");
    assertThat(registration.heartbeatInterval()).isEqualTo(Duration.ofMillis(100));
    // A witness registered at the same time that never heartbeats: once the server has removed
    // it (its 2 s delete timeout), only heartbeats can have kept the client's instance.
    WireClient witness = WireClient.connect(server.tcpPort(), "witness");
    try {
      witness.call("instance.register", "{\"service\":\"clock\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":1}}");
      await().atMost(WAIT).until(() ->
          app.query(ServiceName.of("clock")).block(WAIT).instances().isEmpty());
    } finally {
      witness.close();
    }
    ServiceSnapshot snapshot = app.query(ORDERS).block(WAIT);
    assertThat(snapshot.instances()).singleElement().satisfies(i -> assertThat(i.healthy()).isTrue());
  }

  @Test
  void deregisterRemovesTheInstanceAndCloseDeregistersTheRest() {
    RegistryClient app = client("orders-app");
    RegistryClient other = client("other");
    Registration first = app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);
    app.register(ORDERS, instance("127.0.0.6", 8080)).block(WAIT);

    assertThat(first.deregister().block(WAIT)).isTrue();
    assertThat(first.isActive()).isFalse();
    assertThat(first.deregister().block(WAIT)).isFalse();
    assertThat(other.query(ORDERS).block(WAIT).instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.6");

    app.close().block(WAIT);
    assertThat(other.query(ORDERS).block(WAIT).instances()).isEmpty();
  }

  @Test
  void aPersistentInstanceStaysWhenTheClientThatRegisteredItCloses() {
    RegistryClient tool = client("db-operator");
    RegistryClient other = client("other");
    ServiceName db = ServiceName.of("db");
    Registration registration = tool.register(db, instance("127.0.0.9", 5432), false).block(WAIT);
    assertThat(registration.ephemeral()).isFalse();

    tool.close().block(WAIT);
    // Ask only once the server has handled the close (the other client's connection remains).
    await().atMost(WAIT).until(() -> server.openConnections() == 1);

    assertThat(other.query(db).block(WAIT).instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.9");
    assertThat(other.query(db).block(WAIT).ephemeral()).isFalse();
  }

  @Test
  void watchFoldsEventsIntoCompleteViews() {
    RegistryClient app = client("orders-app");
    RegistryClient gateway = client("gateway");

    StepVerifier.create(gateway.watch(ORDERS))
        // The first view is the service as it is when the subscription reaches the server: empty.
        .expectNextMatches(view -> view.instances().isEmpty() && !view.stale())
        .then(() -> app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT))
        .expectNextMatches(view -> view.instances().size() == 1 && !view.stale())
        .then(() -> app.register(ORDERS, instance("127.0.0.6", 8080)).block(WAIT))
        .expectNextMatches(view -> view.instances().size() == 2)
        .then(() -> app.registrations().get(0).deregister().block(WAIT))
        .expectNextMatches(view -> view.instances().size() == 1)
        .thenCancel()
        .verify(WAIT);
  }

  @Test
  void watchersOfOneViewShareOneServerSubscriptionAndLateOnesGetTheLatestView() {
    RegistryClient app = client("orders-app");
    RegistryClient gateway = client(RegistryClient.builder().servers(TestServers.address(server))
        .watchGracePeriod(Duration.ofMillis(100)));
    app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);

    List<ServiceView> first = new CopyOnWriteArrayList<>();
    Disposable a = gateway.watch(ORDERS).subscribe(first::add);
    await().atMost(WAIT).until(() -> !first.isEmpty());

    StepVerifier.create(gateway.watch(ORDERS).take(1))
        .expectNextMatches(view -> view.instances().size() == 1)
        .verifyComplete();
    Disposable b = gateway.watch(ORDERS).subscribe();
    assertThat(server.runtime().subscriberCount()).isEqualTo(1);

    a.dispose();
    b.dispose();
    await().atMost(WAIT).until(() -> server.runtime().subscriberCount() == 0);
  }

  @Test
  void chooseFollowsWeightsAmongInstancesThatServeTraffic() {
    RegistryClient app = client("orders-app");
    RegistryClient caller = client(RegistryClient.builder().servers(TestServers.address(server))
        .random(new java.util.Random(42)));
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 3.0, Map.of())).block(WAIT);
    app.register(ORDERS, InstanceBody.of("127.0.0.6", 8080, null, 1.0, Map.of())).block(WAIT);
    app.register(ORDERS, InstanceBody.of("127.0.0.7", 8080, null, 0.0, Map.of())).block(WAIT);
    await().atMost(WAIT).until(() -> caller.watch(ORDERS).blockFirst(WAIT).instances().size() == 3);

    int heavy = 0;
    for (int i = 0; i < 4_000; i++) {
      String ip = caller.choose(ORDERS).block(WAIT).ip();
      assertThat(ip).isNotEqualTo("127.0.0.7");
      heavy += ip.equals("127.0.0.5") ? 1 : 0;
    }
    // Expected 3,000 of 4,000; the standard deviation is about 27, so this bound is 5 sigma.
    assertThat(heavy).isBetween(2_865, 3_135);
  }

  @Test
  void whenProtectionIsTriggeredChooseSpreadsOverUnhealthyInstancesToo() {
    WireClient ops = WireClient.connect(server.tcpPort(), "ops");
    try {
      ops.call("admin.service.create", "{\"service\":\"orders\",\"protectThreshold\":0.5}");
      RegistryClient app = client("orders-app");
      RegistryClient caller = client(RegistryClient.builder().servers(TestServers.address(server))
          .random(new java.util.Random(7)));
      for (int port = 1; port <= 4; port++) {
        app.register(ORDERS, instance("127.0.0.5", port)).block(WAIT);
      }
      // One of four taken out of rotation: 3 of 4 serve, above the threshold, so never chosen.
      ops.call("admin.instance.patch", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":1},"
          + "\"enabled\":false}");
      await().atMost(WAIT).until(() -> caller.watch(ORDERS, List.of(), true).blockFirst(WAIT).instances().size() == 3);
      for (int i = 0; i < 200; i++) {
        assertThat(caller.choose(ORDERS).block(WAIT).port()).isNotEqualTo(1);
      }

      // Three of four unhealthy (their owner never heartbeats): protection wins over health.
      ServiceName payments = ServiceName.of("payments");
      ops.call("admin.service.create", "{\"service\":\"payments\",\"protectThreshold\":0.5}");
      app.register(payments, instance("127.0.0.6", 1)).block(WAIT);
      for (int port = 2; port <= 4; port++) {
        // Unhealthy after 1 s without heartbeats, removed only after a minute.
        ops.call("instance.register", "{\"service\":\"payments\",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":"
            + port + ",\"metadata\":{\"preserved.heart.beat.timeout\":\"1000\",\"preserved.ip.delete.timeout\":\"60000\"}}}");
      }
      await().atMost(WAIT).until(() -> {
        ServiceView view = caller.watch(payments, List.of(), true).blockFirst(WAIT);
        return view.protectionTriggered() && view.instances().size() == 4;
      });
      java.util.Set<Integer> chosen = new java.util.HashSet<>();
      for (int i = 0; i < 200; i++) {
        chosen.add(caller.choose(payments).block(WAIT).port());
      }
      assertThat(chosen).containsExactlyInAnyOrder(1, 2, 3, 4);
    } finally {
      ops.close();
    }
  }

  @Test
  void chooseOfAServiceWithNothingToCallIsAClearError() {
    RegistryClient caller = client("caller");
    RegistryClient app = client("app");
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 0.0, Map.of())).block(WAIT);

    StepVerifier.create(caller.choose(ORDERS))
        .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(NoInstanceAvailableException.class)
            .hasMessageContaining("public/DEFAULT_GROUP/orders"))
        .verify(WAIT);
  }

  @Test
  void chooseWithNoServerReachableAndNoViewSeenFailsAtOnceNamingTheService() {
    // Nothing listens on port 1 of loopback: the client never connects and has no earlier view.
    RegistryClient caller = client(RegistryClient.builder().servers("tcp://127.0.0.1:1")
        .requestTimeout(WAIT));
    await().atMost(WAIT).until(caller::isUnreachable); // its first attempt failed

    RegistryUnavailableException unavailable = AtOnce.answer(() -> catchThrowableOfType(RegistryUnavailableException.class,
        () -> caller.choose(ORDERS).block(WAIT)));
    assertThat(unavailable).hasMessageContaining("public/DEFAULT_GROUP/orders")
        .hasMessageContaining("tcp://127.0.0.1:1");
  }

  @Test
  void mistakesAreRefusedBeforeSendingInTheServersWordsAndRefusalsAreTyped() {
    RegistryClient app = client("orders-app");

    assertThatThrownBy(() -> app.register(ORDERS, instance("127.0.0.5", 0)).block(WAIT))
        .isInstanceOfSatisfying(RegistryErrorException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAM))
        .hasMessage("instance.port must be between 1 and 65535");
    assertThatThrownBy(() -> ServiceName.of("or ders")).hasMessageContaining("service may contain only");
    // Refused by the client itself: the server never saw a registration.
    assertThat(registrationsSeenByServer()).isZero();

    app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);
    assertThatThrownBy(() -> app.register(ORDERS, instance("127.0.0.6", 8080), false).block(WAIT))
        .isInstanceOfSatisfying(RegistryErrorException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.SERVICE_TYPE_MISMATCH));
  }

  private long registrationsSeenByServer() {
    return server.meters().find("registry.requests").tag("route", "instance.register").timers().stream()
        .mapToLong(io.micrometer.core.instrument.Timer::count).sum();
  }

  @Test
  void metersShowConnectionRegistrationsAndWatches() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RegistryClient app = client(RegistryClient.builder().servers(TestServers.address(server)).meterRegistry(meters));
    app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);
    Disposable watch = app.watch(ORDERS).subscribe();

    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(meters.get("registry.client.connected").gauge().value()).isEqualTo(1.0);
      assertThat(meters.get("registry.client.registrations").gauge().value()).isEqualTo(1.0);
      assertThat(meters.get("registry.client.watches").gauge().value()).isEqualTo(1.0);
    });
    watch.dispose();
  }

  @Test
  void callsMadeWhileNoServerIsReachableFailWithRegistryUnavailable() {
    RegistryClient lonely = client(RegistryClient.builder().servers("tcp://127.0.0.1:1")
        .requestTimeout(Duration.ofMillis(300)));

    // However the request timed out (waiting for a connection, or for an answer), the same exception.
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> lonely.query(ORDERS).block(WAIT)).isInstanceOf(RegistryUnavailableException.class);
    }
    assertThatThrownBy(() -> lonely.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT))
        .isInstanceOf(RegistryUnavailableException.class);
    assertThat(lonely.isConnected()).isFalse();
  }

  @Test
  void whileNoServerIsReachableReadsAnswerAtOnceFromWhatTheClientSawLast() {
    RegistryServer own = TestServers.start(0);
    RegistryClient app = client(RegistryClient.builder().servers(TestServers.address(own)).clientName("app")
        .requestTimeout(WAIT));
    app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);
    assertThat(app.choose(ORDERS).block(WAIT).ip()).isEqualTo("127.0.0.5");
    assertThat(app.services("public", null).collectList().block(WAIT)).extracting(ServiceSummary::service)
        .containsExactly("orders");
    assertThat(app.query(ORDERS).block(WAIT).instances()).hasSize(1);

    own.disposeNow(Duration.ofSeconds(5)); // every member gone
    await().atMost(WAIT).until(app::isUnreachable);

    // Each read answers from memory, well within the 10 s request timeout it used to wait out.
    assertThat(AtOnce.answer(() -> app.services("public", null).collectList().block(WAIT)))
        .extracting(ServiceSummary::service).containsExactly("orders");
    assertThat(AtOnce.answer(() -> app.query(ORDERS).block(WAIT)).instances()).extracting(InstanceBody::ip)
        .containsExactly("127.0.0.5");
    assertThat(AtOnce.answer(() -> app.choose(ORDERS).block(WAIT)).ip()).isEqualTo("127.0.0.5");
    ServiceView stale = AtOnce.answer(() -> app.watch(ORDERS, List.of(), true).blockFirst(WAIT));
    assertThat(stale.stale()).isTrue();
    assertThat(stale.instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.5");
    // What it never read fails at once, saying so.
    RegistryUnavailableException never = AtOnce.answer(() -> catchThrowableOfType(RegistryUnavailableException.class,
        () -> app.query(ServiceName.of("billing")).block(WAIT)));
    assertThat(never).hasMessageContaining("never read before");
  }

  @Test
  void theCatalogIsPushedAsServicesAppearChangeAndGo() {
    RegistryClient app = client("app");
    RegistryClient gateway = client("gateway");
    app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);
    List<CatalogView> views = new CopyOnWriteArrayList<>();
    Disposable watching = gateway.catalog("public", null, null).subscribe(views::add);
    WireClient ops = WireClient.connect(server.tcpPort(), "ops");
    try {
      await().atMost(WAIT).untilAsserted(() -> assertThat(newest(views).services())
          .extracting(ServiceSummary::service, ServiceSummary::instanceCount).containsExactly(tuple("orders", 1)));

      Registration billing = app.register(ServiceName.of("billing"), instance("127.0.0.6", 9090)).block(WAIT);
      app.register(ORDERS, instance("127.0.0.5", 8081)).block(WAIT);
      await().atMost(WAIT).untilAsserted(() -> assertThat(newest(views).services())
          .extracting(ServiceSummary::service, ServiceSummary::instanceCount)
          .containsExactly(tuple("billing", 1), tuple("orders", 2)));

      billing.deregister().block(WAIT);
      ops.call("admin.service.delete", "{\"service\":\"billing\"}");
      await().atMost(WAIT).untilAsserted(() -> assertThat(newest(views).services())
          .extracting(ServiceSummary::service).containsExactly("orders"));
      assertThat(views).extracting(CatalogView::revision).isSorted();
      assertThat(views).noneMatch(CatalogView::stale);
    } finally {
      watching.dispose();
      ops.close();
    }
  }

  /**
   * The newest catalog view pushed. While none has arrived yet this is an assertion error, which
   * an {@code untilAsserted} awaits again (an index error would end the wait: seen once, when the
   * first view took longer than the first poll on a loaded machine).
   */
  private static CatalogView newest(List<CatalogView> views) {
    assertThat(views).as("catalog views pushed so far").isNotEmpty();
    return views.get(views.size() - 1);
  }

  @Test
  void withPushEmptyProtectionAWatchKeepsItsLastInstancesUntilTheServiceIsDeleted() {
    RegistryClient app = client("app");
    RegistryClient guarded = client(RegistryClient.builder().servers(TestServers.address(server)).clientName("guarded")
        .pushEmptyProtection(true));
    RegistryClient plain = client("plain");
    Registration registration = app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT);
    List<ServiceView> guardedViews = new CopyOnWriteArrayList<>();
    List<ServiceView> plainViews = new CopyOnWriteArrayList<>();
    Disposable guarding = guarded.watch(ORDERS).subscribe(guardedViews::add);
    Disposable watching = plain.watch(ORDERS).subscribe(plainViews::add);
    WireClient ops = WireClient.connect(server.tcpPort(), "ops");
    try {
      await().atMost(WAIT).until(() -> !guardedViews.isEmpty() && !plainViews.isEmpty()
          && plainViews.get(plainViews.size() - 1).instances().size() == 1);

      registration.deregister().block(WAIT);
      await().atMost(WAIT).until(() -> plainViews.get(plainViews.size() - 1).instances().isEmpty());
      await().during(Duration.ofMillis(300)).atMost(WAIT).until(() ->
          guardedViews.stream().allMatch(view -> view.instances().size() == 1));

      ops.call("admin.service.delete", "{\"service\":\"orders\"}");
      await().atMost(WAIT).until(() -> guardedViews.get(guardedViews.size() - 1).instances().isEmpty());
    } finally {
      guarding.dispose();
      watching.dispose();
      ops.close();
    }
  }

  @Test
  void clientsGivenTheSameListSpreadOverItsServers() {
    List<RegistryServer> servers = List.of(TestServers.start(0), TestServers.start(0), TestServers.start(0));
    try {
      String[] addresses = servers.stream().map(TestServers::address).toArray(String[]::new);
      for (int seed = 0; seed < 12; seed++) {
        RegistryClient fleetMember = client(RegistryClient.builder().servers(addresses)
            .random(new java.util.Random(seed)));
        await().atMost(WAIT).until(fleetMember::isConnected);
      }
      // Each client shuffles the list once: the first address listed does not take the whole fleet.
      assertThat(servers).allSatisfy(s -> assertThat(s.openConnections()).isPositive());
      assertThat(servers.stream().mapToInt(RegistryServer::openConnections).sum()).isEqualTo(12);
    } finally {
      clients.forEach(RegistryClient::closeAndWait);
      clients.clear();
      servers.forEach(s -> s.disposeNow(Duration.ofSeconds(5)));
    }
  }

  @Test
  void eventsGivesTheRawStreamOfAView() {
    RegistryClient app = client("orders-app");
    RegistryClient gateway = client("gateway");

    StepVerifier.create(gateway.events(ORDERS, List.of(), false))
        .expectNextMatches(e -> e.type().equals("SNAPSHOT") && e.instances().isEmpty())
        .then(() -> app.register(ORDERS, instance("127.0.0.5", 8080)).block(WAIT))
        .expectNextMatches(e -> e.type().equals("SNAPSHOT") && e.instances().size() == 1) // the service appeared
        .then(() -> app.register(ORDERS, instance("127.0.0.6", 8080)).block(WAIT))
        .expectNextMatches(e -> e.type().equals("UPSERT") && e.instance().ip().equals("127.0.0.6"))
        .then(() -> app.registrations().get(1).deregister().block(WAIT))
        .expectNextMatches(e -> e.type().equals("REMOVE"))
        .thenCancel()
        .verify(WAIT);
  }

  @Test
  void chooseWithAClusterPrefersItAndFallsBackWhenItHasNothing() {
    RegistryClient app = client("orders-app");
    RegistryClient caller = client("caller");
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, "east", 1.0, Map.of())).block(WAIT);
    app.register(ORDERS, InstanceBody.of("127.0.0.6", 8080, "west", 1.0, Map.of())).block(WAIT);
    await().atMost(WAIT).until(() -> caller.watch(ORDERS, List.of(), true).blockFirst(WAIT).instances().size() == 2);

    java.util.Set<String> east = new java.util.HashSet<>();
    java.util.Set<String> anywhere = new java.util.HashSet<>();
    for (int i = 0; i < 100; i++) {
      east.add(caller.choose(ORDERS, "east").block(WAIT).cluster());
      anywhere.add(caller.choose(ORDERS, "north").block(WAIT).cluster());
    }
    assertThat(east).containsExactly("east");
    assertThat(anywhere).containsExactlyInAnyOrder("east", "west");
  }

  /**
   * A watch of a selection gets only the instances its selector selects, an instance whose
   * metadata changes comes into or goes out of it, watchers of the same selection share one
   * server subscription, and {@code choose} picks only among the selected instances.
   */
  @Test
  void aSelectionWatchesAndChoosesOnlyTheInstancesItsSelectorSelects() {
    RegistryClient app = client("orders-app");
    RegistryClient caller = client("caller");
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of("version", "v1"))).block(WAIT);
    app.register(ORDERS, InstanceBody.of("127.0.0.6", 8080, null, 1.0, Map.of("version", "v2"))).block(WAIT);
    Selection v2 = Selection.healthy().matching("version in (v2, v3)");

    List<ServiceView> views = new CopyOnWriteArrayList<>();
    Disposable watching = caller.watch(ORDERS, v2).subscribe(views::add);
    Disposable same = caller.watch(ORDERS, Selection.healthy().matching("version in(v3,v2)")).subscribe();
    await().atMost(WAIT).until(() -> !views.isEmpty());
    assertThat(views.get(views.size() - 1).instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.6");
    assertThat(server.runtime().subscriberCount()).as("one selection, one subscription").isEqualTo(1);
    for (int i = 0; i < 50; i++) {
      assertThat(caller.choose(ORDERS, null, "version=v2").block(WAIT).ip()).isEqualTo("127.0.0.6");
    }

    // Re-registered as v3, the first instance comes into the selection; the second goes as v1.
    app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of("version", "v3"))).block(WAIT);
    app.register(ORDERS, InstanceBody.of("127.0.0.6", 8080, null, 1.0, Map.of("version", "v1"))).block(WAIT);
    await().atMost(WAIT).untilAsserted(() -> assertThat(views.get(views.size() - 1).instances())
        .extracting(InstanceBody::ip).containsExactly("127.0.0.5"));
    assertThat(caller.query(ORDERS, Selection.all().matching("!version")).block(WAIT).instances()).isEmpty();

    assertThatThrownBy(() -> Selection.all().matching("version in v2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("selector is not a valid selector: at position 12, expected '(' to open the values of "
            + "'version' (found 'v')");
    watching.dispose();
    same.dispose();
  }
}
