package io.reactiveregistry.server.e2e;

import static io.reactiveregistry.server.e2e.Registrations.registration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** A real server on a loopback port, real RSocket connections over TCP, real connection closes. */
class RegistryEndToEndTest {
  private final ServerFixture fixture = new ServerFixture();

  @AfterEach
  void stop() {
    fixture.close();
  }

  private static ServiceEvent event(String json) {
    return JsonCodec.json().decode(json, ServiceEvent.class);
  }

  @Test
  void registersQueriesAndSubscribesOverTcp() {
    WireClient app = fixture.connect("orders-app");
    WireClient watcher = fixture.connect("gateway");

    RegisterResult registered = app.call("instance.register",
        registration("orders", "127.0.0.5", 8080, "\"metadata\":{\"zone\":\"a\"}"), RegisterResult.class);
    assertThat(registered).isEqualTo(new RegisterResult("127.0.0.5#8080#DEFAULT", 1, 5_000, 15_000, 30_000));

    ServiceSnapshot snapshot = watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class);
    assertThat(snapshot.namespace()).isEqualTo("public");
    assertThat(snapshot.group()).isEqualTo("DEFAULT_GROUP");
    assertThat(snapshot.revision()).isEqualTo(1);
    assertThat(snapshot.instances()).singleElement().satisfies(i -> {
      assertThat(i.instanceId()).isEqualTo("127.0.0.5#8080#DEFAULT");
      assertThat(i.healthy()).isTrue();
      assertThat(i.ephemeral()).isTrue();
      assertThat(i.metadata()).containsEntry("zone", "a");
    });

    StepVerifier.create(watcher.stream("service.subscribe", "{\"service\":\"orders\"}").map(RegistryEndToEndTest::event))
        .assertNext(e -> assertThat(e.type()).isEqualTo("SNAPSHOT"))
        .then(() -> app.call("instance.register", registration("orders", "127.0.0.6", 8080)))
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("UPSERT");
          assertThat(e.revision()).isEqualTo(2);
          assertThat(e.instance().ip()).isEqualTo("127.0.0.6");
        })
        .then(() -> app.call("instance.deregister",
            "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":8080}}"))
        .assertNext(e -> assertThat(e).extracting(ServiceEvent::type, ServiceEvent::instanceId)
            .containsExactly("REMOVE", "127.0.0.6#8080#DEFAULT"))
        .thenCancel()
        .verify(Duration.ofSeconds(10));
  }

  @Test
  void closingAConnectionReleasesItsInstancesAndSubscribersHearAtOnce() {
    WireClient app = fixture.connect("orders-app");
    WireClient watcher = fixture.connect("gateway");
    app.call("instance.register", registration("orders", "127.0.0.5", 8080));
    app.call("instance.register", registration("orders", "127.0.0.6", 8080));
    List<ServiceEvent> seen = new CopyOnWriteArrayList<>();
    Disposable subscription = watcher.stream("service.subscribe", "{\"service\":\"orders\"}")
        .map(RegistryEndToEndTest::event).subscribe(seen::add);
    await().until(() -> seen.size() == 1);

    app.close();
    // Released by the close itself: without it they would stay until their heartbeats expire
    // (30 s). How fast, in milliseconds, is a benchmark's question (ChurnWithSubscribers).
    await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 3);

    assertThat(seen.subList(1, 3)).extracting(ServiceEvent::type).containsOnly("REMOVE");
    assertThat(seen.subList(1, 3)).extracting(ServiceEvent::instanceId)
        .containsExactlyInAnyOrder("127.0.0.5#8080#DEFAULT", "127.0.0.6#8080#DEFAULT");
    assertThat(watcher.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances()).isEmpty();
    subscription.dispose();
  }

  @Test
  void anInstanceTakenOverByAnotherConnectionOutlivesTheFirstConnection() {
    WireClient first = fixture.connect("first");
    WireClient second = fixture.connect("second");
    first.call("instance.register", registration("orders", "127.0.0.5", 8080));
    second.call("instance.register", registration("orders", "127.0.0.5", 8080));

    first.close();

    // The server has handled the close once only the second connection is open.
    await().atMost(Duration.ofSeconds(5)).until(() -> fixture.server().openConnections() == 1);
    assertThat(first.isDisposed()).isTrue();
    assertThat(second.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
        .singleElement().satisfies(instance -> assertThat(instance.ip()).isEqualTo("127.0.0.5"));
  }

  @Test
  void onlyTheOwnerMayDeregisterAndDeregisteringNothingSucceeds() {
    WireClient owner = fixture.connect("owner");
    WireClient other = fixture.connect("other");
    owner.call("instance.register", registration("orders", "127.0.0.5", 8080));
    String ref = "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}";

    assertThat(other.error("instance.deregister", ref).code()).isEqualTo("FORBIDDEN");
    assertThat(owner.call("instance.deregister", ref, DeregisterResult.class)).isEqualTo(new DeregisterResult(true, 2));
    assertThat(owner.call("instance.deregister", ref, DeregisterResult.class)).isEqualTo(new DeregisterResult(false, 2));
    assertThat(other.call("instance.deregister",
        "{\"service\":\"nothing-here\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":1}}", DeregisterResult.class)
        .removed()).isFalse();
  }

  /**
   * Timings short enough for a test and far from a loaded machine's pauses: a heartbeat every
   * 100 ms, unhealthy after 3 s of silence, removed after 3.2 s. (The exact rules are tested on
   * virtual time in core/RegistryTest; these tests show heartbeats over the wire reach them.)
   */
  private static final String FAST = "\"metadata\":{\"preserved.heart.beat.interval\":\"100\","
      + "\"preserved.heart.beat.timeout\":\"3000\",\"preserved.ip.delete.timeout\":\"3200\"}";

  private static int instanceCount(WireClient client, String service) {
    return client.call("service.query", "{\"service\":\"" + service + "\"}", ServiceSnapshot.class).instances()
        .size();
  }

  @Test
  void instancesExpireWhenHeartbeatsStopAndHeartbeatsKeepThemAlive() {
    WireClient app = fixture.connect("orders-app");
    RegisterResult kept = app.call("instance.register", registration("orders", "127.0.0.5", 8080, FAST),
        RegisterResult.class);
    app.call("instance.register", registration("orders", "127.0.0.6", 8080, FAST)); // never heartbeated
    assertThat(kept.heartbeatTimeoutMs()).isEqualTo(3000);
    String beat = "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080," + FAST + "}}";

    Disposable heartbeats = Flux.interval(Duration.ofMillis(100)).subscribe(tick -> app.fire("instance.heartbeat", beat));
    try {
      // The silent one is removed once its delete timeout has passed ...
      await().atMost(Duration.ofSeconds(20)).until(() -> instanceCount(app, "orders") == 1);
    } finally {
      heartbeats.dispose();
    }
    // ... while the heartbeated one, silent for no longer than a pause, is still there and healthy.
    ServiceSnapshot snapshot = app.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class);
    assertThat(snapshot.instances()).singleElement().satisfies(i -> {
      assertThat(i.ip()).isEqualTo("127.0.0.5");
      assertThat(i.healthy()).isTrue();
    });
  }

  @Test
  void anEmptyHeartbeatRefreshesEveryInstanceOfTheConnection() {
    WireClient app = fixture.connect("orders-app");
    WireClient witness = fixture.connect("witness");
    app.call("instance.register", registration("orders", "127.0.0.5", 8080, FAST));
    app.call("instance.register", registration("billing", "127.0.0.5", 8080, FAST));
    witness.call("instance.register", registration("clock", "127.0.0.9", 8080, FAST)); // never heartbeated

    Disposable heartbeats = Flux.interval(Duration.ofMillis(100)).subscribe(tick -> app.fire("instance.heartbeat", "{}"));
    try {
      // Once the witness is gone, its delete timeout has passed for the others too.
      await().atMost(Duration.ofSeconds(20)).until(() -> instanceCount(witness, "clock") == 0);
    } finally {
      heartbeats.dispose();
    }
    assertThat(instanceCount(app, "orders")).isEqualTo(1);
    assertThat(instanceCount(app, "billing")).isEqualTo(1);
  }

  @Test
  void aHeartbeatRecreatesAnInstanceTheServerNoLongerHas() {
    WireClient app = fixture.connect("orders-app");

    app.fire("instance.heartbeat", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");

    await().atMost(Duration.ofSeconds(2)).until(() ->
        app.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().size() == 1);
  }

  @Test
  void queriesFilterByClusterAndHealth() {
    WireClient app = fixture.connect("orders-app");
    app.call("instance.register", registration("orders", "127.0.0.5", 8080, "\"cluster\":\"eu\""));
    app.call("instance.register", registration("orders", "127.0.0.6", 8080, "\"cluster\":\"us\""));
    app.call("instance.register", registration("orders", "127.0.0.7", 8080, "\"cluster\":\"us\",\"weight\":0"));

    assertThat(app.call("service.query", "{\"service\":\"orders\",\"clusters\":[\"us\"]}", ServiceSnapshot.class)
        .instances()).hasSize(2);
    assertThat(app.call("service.query", "{\"service\":\"orders\",\"clusters\":[\"us\"],\"healthyOnly\":true}",
        ServiceSnapshot.class).instances()).extracting(i -> i.ip()).containsExactly("127.0.0.6");
    assertThat(app.call("service.query", "{\"service\":\"orders\",\"clusters\":[]}", ServiceSnapshot.class)
        .instances()).hasSize(3);
  }

  @Test
  void aSlowSubscriberCatchesUpWithOneFreshSnapshot() {
    WireClient app = fixture.connect("orders-app");
    WireClient slow = fixture.connect("slow");

    StepVerifier.create(slow.stream("service.subscribe", "{\"service\":\"orders\"}").map(RegistryEndToEndTest::event), 1)
        .assertNext(e -> assertThat(e.type()).isEqualTo("SNAPSHOT"))
        .then(() -> {
          for (int port = 1; port <= 1_500; port++) {
            app.call("instance.register", registration("orders", "127.0.0.5", port));
          }
        })
        .thenRequest(1)
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("SNAPSHOT");
          assertThat(e.instances()).hasSize(1_500);
          assertThat(e.revision()).isEqualTo(1_500);
        })
        .thenCancel()
        .verify(Duration.ofSeconds(20));
  }

  @Test
  void serverInfoReportsTheVersionAndProtocol() {
    ServerInfo info = fixture.connect("ops").call("server.info", "{}", ServerInfo.class);

    assertThat(info.protocol()).isEqualTo(1);
    assertThat(info.version()).isNotBlank();
    assertThat(info.members()).containsExactly(info.nodeId());
    assertThat(info.uptimeMs()).isNotNegative();
  }

  @Test
  void persistentInstancesStayWhenTheirConnectionCloses() {
    WireClient operator = fixture.connect("operator");
    operator.call("instance.register",
        "{\"service\":\"postgres\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.9\",\"port\":5432}}");
    operator.close();
    // Query only once the server has handled the close: before that, anything would still be there.
    await().atMost(Duration.ofSeconds(5)).until(() -> fixture.server().openConnections() == 0);

    WireClient other = fixture.connect("other");
    ServiceSnapshot snapshot = other.call("service.query", "{\"service\":\"postgres\"}", ServiceSnapshot.class);
    assertThat(snapshot.ephemeral()).isFalse();
    assertThat(snapshot.instances()).singleElement().satisfies(i -> assertThat(i.ephemeral()).isFalse());
  }
}
