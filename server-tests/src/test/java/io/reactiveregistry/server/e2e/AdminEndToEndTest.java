package io.reactiveregistry.server.e2e;

import static io.reactiveregistry.server.e2e.Registrations.registration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.BatchResult;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.NamespaceList;
import io.reactiveregistry.protocol.message.NamespaceSummary;
import io.reactiveregistry.protocol.message.ServiceDetail;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.LifecycleConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** Operator routes over real connections: each route, its errors, and what subscribers see. */
class AdminEndToEndTest {
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withLifecycle(new LifecycleConfig(Duration.ofMillis(500), Duration.ofMinutes(10), true, Duration.ofSeconds(60),
          0.85)));

  @AfterEach
  void stop() {
    fixture.close();
  }

  private static ServiceEvent event(String json) {
    return JsonCodec.json().decode(json, ServiceEvent.class);
  }

  @Test
  void operatorsCreateGetUpdateListAndDeleteServices() {
    WireClient ops = fixture.connect("ops");

    ServiceDetail created = ops.call("admin.service.create",
        "{\"service\":\"postgres\",\"ephemeral\":false,\"protectThreshold\":0.5,\"metadata\":{\"team\":\"data\"}}",
        ServiceDetail.class);
    assertThat(created.ephemeral()).isFalse();
    assertThat(created.protectThreshold()).isEqualTo(0.5);
    assertThat(ops.error("admin.service.create", "{\"service\":\"postgres\"}").code()).isEqualTo("ALREADY_EXISTS");
    assertThat(ops.error("admin.service.update", "{\"service\":\"postgres\",\"ephemeral\":true}").code())
        .isEqualTo("INVALID_PARAM");
    assertThat(ops.call("admin.service.update", "{\"service\":\"postgres\",\"protectThreshold\":0.25}",
        ServiceDetail.class).metadata()).containsEntry("team", "data");
    assertThat(ops.call("admin.service.get", "{\"service\":\"postgres\"}", ServiceDetail.class).protectThreshold())
        .isEqualTo(0.25);
    assertThat(ops.error("admin.service.get", "{\"service\":\"nope\"}").code()).isEqualTo("NOT_FOUND");

    ops.call("instance.register",
        "{\"service\":\"postgres\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.9\",\"port\":5432}}");
    assertThat(ops.error("admin.service.delete", "{\"service\":\"postgres\"}").code()).isEqualTo("SERVICE_NOT_EMPTY");
    ServiceList list = ops.call("service.list", "{\"prefix\":\"post\"}", ServiceList.class);
    assertThat(list.total()).isEqualTo(1);
    assertThat(list.services().get(0).instanceCount()).isEqualTo(1);

    ops.call("instance.deregister", "{\"service\":\"postgres\",\"instance\":{\"ip\":\"127.0.0.9\",\"port\":5432}}");
    assertThat(ops.call("admin.service.delete", "{\"service\":\"postgres\"}")).isEqualTo("{\"deleted\":true}");
    assertThat(ops.error("admin.service.delete", "{\"service\":\"postgres\"}").code()).isEqualTo("NOT_FOUND");
  }

  @Test
  void namespaceListGivesEachNamespaceThatHoldsAServiceWithItsCountsOverRSocketAndHttp() throws Exception {
    // A port nothing listens on, so the persistent instance there fails its checks: held bound (never
    // listening) for the whole test, since a port merely found free and let go was taken by another
    // process of the parallel build within the test's 10 s, and the instance stayed healthy.
    try (java.net.Socket reserved = new java.net.Socket()) {
      reserved.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
      namespaceCounts(reserved.getLocalPort());
    }
  }

  private void namespaceCounts(int closed) throws Exception {
    try (ServerFixture checking = new ServerFixture(ServerConfig.ephemeralLoopback()
        .withHealthChecks(new ServerConfig.HealthChecks(Duration.ofMillis(200), Duration.ofMillis(1_000), 4)))) {
      WireClient app = checking.connect("app");
      WireClient ops = checking.connect("ops");
      assertThat(app.call("namespace.list", "{}", NamespaceList.class).namespaces()).isEmpty();

      app.call("instance.register", registration("orders", "127.0.0.5", 8080));
      app.call("instance.register", registration("orders", "127.0.0.6", 8080));
      String db = "{\"namespace\":\"prod\",\"service\":\"db\",\"ephemeral\":false,"
          + "\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + closed + "}}";
      app.call("instance.register", db);
      ops.call("admin.service.create", "{\"namespace\":\"prod\",\"service\":\"empty\"}");

      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          assertThat(app.call("namespace.list", "{}", NamespaceList.class).namespaces()).containsExactly(
              new NamespaceSummary("prod", 2, 1, 0), new NamespaceSummary("public", 1, 2, 2)));
      HttpResponse<String> overHttp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + checking.server().httpPort() + "/api/v1/namespaces")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(overHttp.statusCode()).isEqualTo(200);
      assertThat(JsonCodec.json().decode(overHttp.body(), NamespaceList.class))
          .isEqualTo(app.call("namespace.list", "{}", NamespaceList.class));

      // A namespace exists while it holds a service: its last one deleted, it is gone from the list.
      app.call("instance.deregister", db);
      ops.call("admin.service.delete", "{\"namespace\":\"prod\",\"service\":\"db\"}");
      ops.call("admin.service.delete", "{\"namespace\":\"prod\",\"service\":\"empty\"}");
      assertThat(app.call("namespace.list", "{}", NamespaceList.class).namespaces())
          .extracting(NamespaceSummary::namespace).containsExactly("public");
    }
  }

  @Test
  void serviceListPagesThroughServicesSortedByGroupAndName() {
    WireClient app = fixture.connect("app");
    for (int i = 0; i < 5; i++) {
      app.call("instance.register", registration("svc-" + i, "127.0.0.1", 1000 + i));
    }

    ServiceList second = app.call("service.list", "{\"page\":2,\"pageSize\":2}", ServiceList.class);

    assertThat(second.total()).isEqualTo(5);
    assertThat(second.services()).extracting(s -> s.service()).containsExactly("svc-2", "svc-3");
    assertThat(app.error("service.list", "{\"pageSize\":0}").message()).contains("pageSize");
  }

  @Test
  void anOverrideIsPushedToSubscribersAtOnceAndPatchChangesOnlyWhatItGives() {
    WireClient app = fixture.connect("app");
    WireClient ops = fixture.connect("ops");
    WireClient watcher = fixture.connect("watcher");
    app.call("instance.register", registration("orders", "127.0.0.5", 8080, "\"metadata\":{\"zone\":\"a\"}"));
    String ref = "\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}";

    StepVerifier.create(watcher.stream("service.subscribe", "{\"service\":\"orders\"}").map(AdminEndToEndTest::event))
        .assertNext(e -> assertThat(e.instances().get(0).enabled()).isTrue())
        .then(() -> ops.call("admin.instance.update", "{" + ref + ",\"enabled\":false,\"metadata\":{\"drain\":\"1\"}}"))
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("UPSERT");
          assertThat(e.instance().enabled()).isFalse();
          assertThat(e.instance().metadata()).containsEntry("zone", "a").containsEntry("drain", "1");
        })
        .then(() -> ops.call("admin.instance.patch", "{" + ref + ",\"weight\":3,\"metadata\":{\"drain\":null}}"))
        .assertNext(e -> {
          assertThat(e.instance().enabled()).isFalse();
          assertThat(e.instance().weight()).isEqualTo(3.0);
          assertThat(e.instance().metadata()).doesNotContainKey("drain");
        })
        .thenCancel()
        .verify(Duration.ofSeconds(10));

    // The override outlives a re-registration of the same instance.
    app.call("instance.register", registration("orders", "127.0.0.5", 8080, "\"metadata\":{\"zone\":\"a\"}"));
    InstanceBody shown = app.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().get(0);
    assertThat(shown.enabled()).isFalse();
    assertThat(ops.error("admin.instance.update",
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":1},\"enabled\":false}").code())
        .isEqualTo("NOT_FOUND");
  }

  @Test
  void aBatchReplacesTheConnectionsInstancesInTheService() {
    WireClient app = fixture.connect("app");
    app.call("instance.register", registration("orders", "127.0.0.1", 1));
    app.call("instance.register", registration("orders", "127.0.0.1", 2));

    BatchResult result = app.call("instance.batch-register", "{\"service\":\"orders\",\"instances\":["
        + "{\"ip\":\"127.0.0.1\",\"port\":2},{\"ip\":\"127.0.0.1\",\"port\":3}]}", BatchResult.class);

    assertThat(result.instanceIds()).containsExactly("127.0.0.1#2#DEFAULT", "127.0.0.1#3#DEFAULT");
    assertThat(app.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
        .extracting(InstanceBody::port).containsExactlyInAnyOrder(2, 3);
    assertThat(app.error("instance.batch-register", "{\"service\":\"orders\",\"instances\":["
        + "{\"ip\":\"127.0.0.1\",\"port\":4},{\"ip\":\"127.0.0.1\",\"port\":0}]}").message())
        .isEqualTo("instances[1].port must be between 1 and 65535");
    assertThat(app.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances()).hasSize(2);
  }

  @Test
  void anEmptyServiceIsCleanedUpAndItsSubscribersSeeServiceDeleted() {
    WireClient app = fixture.connect("app");
    WireClient watcher = fixture.connect("watcher");
    app.call("instance.register", registration("orders", "127.0.0.5", 8080));

    StepVerifier.create(watcher.stream("service.subscribe", "{\"service\":\"orders\"}").map(AdminEndToEndTest::event))
        .assertNext(e -> assertThat(e.type()).isEqualTo("SNAPSHOT"))
        .then(() -> app.call("instance.deregister",
            "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"))
        .assertNext(e -> assertThat(e.type()).isEqualTo("REMOVE"))
        .assertNext(e -> assertThat(e.type()).isEqualTo("SERVICE_DELETED"))
        .then(() -> app.call("instance.register", registration("orders", "127.0.0.7", 8080)))
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("SNAPSHOT");
          assertThat(e.instances()).hasSize(1);
        })
        .thenCancel()
        .verify(Duration.ofSeconds(10));
  }

  @Test
  void theAuditTrailShowsAChangesCauseInstanceAndConnection() {
    WireClient ops = fixture.connect("ops");
    WireClient app = fixture.connect("orders-app");

    StepVerifier.create(ops.stream("admin.trace", "{\"service\":\"orders\"}")
            .map(json -> JsonCodec.json().decode(json, TraceEvent.class)))
        .then(() -> {
          awaitTraceSubscribers(1);
          app.call("instance.register", registration("billing", "127.0.0.5", 8080));
          app.call("instance.register", registration("orders", "127.0.0.5", 8080));
          app.close();
        })
        .assertNext(e -> {
          assertThat(e.cause()).isEqualTo("REGISTER");
          assertThat(e.service()).isEqualTo("orders");
          assertThat(e.instanceId()).isEqualTo("127.0.0.5#8080#DEFAULT");
          assertThat(e.connection()).startsWith("orders-app@127.0.0.1:");
          assertThat(e.time()).isPositive();
        })
        .assertNext(e -> assertThat(e.cause()).isEqualTo("CONNECTION_CLOSED"))
        .thenCancel()
        .verify(Duration.ofSeconds(10));
  }

  @Test
  void aTraceSubscriberThatFallsBehindIsToldHowManyEventsItMissed() {
    WireClient ops = fixture.connect("ops");
    WireClient app = fixture.connect("app");

    // RSocket opens the stream on the server with the first demand: take one event, then fall behind.
    StepVerifier.create(ops.stream("admin.trace", "{}").map(json -> JsonCodec.json().decode(json, TraceEvent.class)), 1)
        .then(() -> {
          awaitTraceSubscribers(1);
          app.call("instance.register", registration("orders", "127.0.0.1", 1));
        })
        .assertNext(e -> assertThat(e.revision()).isEqualTo(1))
        .then(() -> {
          for (int port = 2; port <= 1_201; port++) {
            app.call("instance.register", registration("orders", "127.0.0.1", port));
          }
        })
        .thenRequest(1)
        .assertNext(e -> {
          assertThat(e.cause()).isEqualTo("GAP");
          assertThat(e.missed()).isEqualTo(200);
        })
        .thenRequest(1)
        .assertNext(e -> assertThat(e.revision()).isEqualTo(202))
        .thenCancel()
        .verify(Duration.ofSeconds(20));
  }

  /** A stream is open on the server only once its REQUEST_STREAM frame has arrived. */
  private void awaitTraceSubscribers(int count) {
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
        fixture.server().meters().get("registry.trace.subscribers").gauge().value() == count);
  }
}
