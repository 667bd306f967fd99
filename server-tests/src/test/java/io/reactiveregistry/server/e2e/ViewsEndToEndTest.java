package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** Views over the wire: protection, names other than the defaults, and the fold of a stream. */
class ViewsEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  /** Time for the server's rules (heartbeat timeouts), moved by the tests; the expiry ticker runs on its own. */
  private final ManualClock clock = new ManualClock(1_000_000);
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback(), clock);

  @AfterEach
  void stop() {
    fixture.close();
  }

  private static ServiceEvent event(String json) {
    return JsonCodec.json().decode(json, ServiceEvent.class);
  }

  private static String instance(String service, int port, String cluster) {
    return "{\"service\":\"" + service + "\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port
        + ",\"cluster\":\"" + cluster + "\"}}";
  }

  private static String disable(int port, String cluster, boolean enabled) {
    return "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port + ",\"cluster\":\""
        + cluster + "\"},\"enabled\":" + enabled + "}";
  }

  /**
   * A healthy-only view shows every instance that may take traffic while too few of them are
   * healthy (protection), and only those: instances taken out of traffic (disabled, weight 0)
   * count neither way, so two disabled for a deploy trigger nothing, and a triggered view never
   * shows one. Subscribers see each switch as a fresh SNAPSHOT.
   */
  @Test
  void protectionShowsTheUnhealthyInstancesThatMayTakeTrafficWhileTooFewAreHealthy() {
    WireClient ops = fixture.connect("ops");
    ops.call("admin.service.create", "{\"service\":\"orders\",\"protectThreshold\":0.5}");
    ops.call("instance.register", instance("orders", 1, "DEFAULT"));
    ops.call("instance.register", instance("orders", 2, "DEFAULT"));
    String query = "{\"service\":\"orders\",\"healthyOnly\":true}";

    ops.call("admin.instance.patch", disable(1, "DEFAULT", false)); // 1 of 2 out for a deploy:
    ServiceSnapshot deploying = ops.call("service.query", query, ServiceSnapshot.class);
    assertThat(deploying.protectionTriggered()).as("the one that may take traffic is healthy").isFalse();
    assertThat(deploying.instances()).extracting(InstanceBody::port).containsExactly(2);
    ops.call("admin.instance.patch", disable(1, "DEFAULT", true));

    // 1 and 2 sent no heartbeat for 16 s (unhealthy after 15 s); 3 and 4 registered 6 s ago.
    clock.advance(Duration.ofSeconds(10));
    ops.call("instance.register", instance("orders", 3, "DEFAULT"));
    ops.call("instance.register", instance("orders", 4, "DEFAULT"));
    clock.advance(Duration.ofSeconds(6));
    await().atMost(WAIT).until(() -> ops.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class)
        .instances().stream().filter(i -> Boolean.FALSE.equals(i.healthy())).count() == 2);
    ServiceSnapshot atThreshold = ops.call("service.query", query, ServiceSnapshot.class);
    assertThat(atThreshold.protectionTriggered()).as("2 healthy of 4: exactly the threshold").isFalse();
    assertThat(atThreshold.instances()).extracting(InstanceBody::port).containsExactlyInAnyOrder(3, 4);
    List<ServiceEvent> healthyOnly = new CopyOnWriteArrayList<>();
    Disposable watch = fixture.connect("watcher").stream("service.subscribe", query)
        .map(ViewsEndToEndTest::event).subscribe(healthyOnly::add);
    try {
      await().atMost(WAIT).until(() -> healthyOnly.size() == 1);

      ops.call("admin.instance.patch", disable(3, "DEFAULT", false)); // 1 healthy of the 3 that may take traffic
      ServiceSnapshot protectedView = ops.call("service.query", query, ServiceSnapshot.class);
      assertThat(protectedView.protectionTriggered()).isTrue();
      assertThat(protectedView.instances()).as("the unhealthy ones, never the disabled one")
          .extracting(InstanceBody::port).containsExactlyInAnyOrder(1, 2, 4);
      await().atMost(WAIT).untilAsserted(() -> assertThat(healthyOnly.get(healthyOnly.size() - 1)).satisfies(e -> {
        assertThat(e.type()).isEqualTo("SNAPSHOT");
        assertThat(e.protectionTriggered()).isTrue();
        assertThat(e.instances()).extracting(InstanceBody::port).containsExactlyInAnyOrder(1, 2, 4);
      }));
      ops.call("admin.instance.patch", disable(3, "DEFAULT", true));
      await().atMost(WAIT).untilAsserted(() -> assertThat(healthyOnly.get(healthyOnly.size() - 1)).satisfies(e -> {
        assertThat(e.type()).isEqualTo("SNAPSHOT");
        assertThat(e.protectionTriggered()).isFalse();
        assertThat(e.instances()).extracting(InstanceBody::port).containsExactlyInAnyOrder(3, 4);
      }));
      // A view of everything never triggers protection.
      assertThat(ops.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class)
          .protectionTriggered()).isFalse();
    } finally {
      watch.dispose();
    }
  }

  @Test
  void aNamespaceAndGroupOtherThanTheDefaultsWorkEndToEnd() {
    WireClient app = fixture.connect("app");
    WireClient watcher = fixture.connect("watcher");
    String ref = "\"namespace\":\"prod\",\"group\":\"payments\",\"service\":\"billing\"";
    List<ServiceEvent> events = new CopyOnWriteArrayList<>();
    Disposable watch = watcher.stream("service.subscribe", "{" + ref + "}").map(ViewsEndToEndTest::event)
        .subscribe(events::add);
    await().atMost(WAIT).until(() -> events.size() == 1);

    app.call("instance.register", "{" + ref + ",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");
    app.fire("instance.heartbeat", "{" + ref + ",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");

    ServiceSnapshot billing = watcher.call("service.query", "{" + ref + "}", ServiceSnapshot.class);
    assertThat(billing.namespace()).isEqualTo("prod");
    assertThat(billing.group()).isEqualTo("payments");
    assertThat(billing.instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.5");
    // The same service name in the default namespace and group is another service.
    assertThat(watcher.call("service.query", "{\"service\":\"billing\"}", ServiceSnapshot.class).instances())
        .isEmpty();
    assertThat(watcher.call("service.list", "{\"namespace\":\"prod\",\"group\":\"payments\"}", ServiceList.class)
        .services()).extracting(ServiceSummary::service).containsExactly("billing");
    assertThat(watcher.call("service.list", "{}", ServiceList.class).services()).isEmpty();
    await().atMost(WAIT).untilAsserted(() -> assertThat(events).extracting(ServiceEvent::type).contains("SNAPSHOT"));
    await().atMost(WAIT).until(() -> events.get(events.size() - 1).instances() != null
        && events.get(events.size() - 1).instances().size() == 1);

    assertThat(app.call("instance.deregister", "{" + ref + ",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"))
        .contains("\"removed\":true");
    await().atMost(WAIT).untilAsserted(() -> assertThat(events.get(events.size() - 1)).satisfies(e -> {
      assertThat(e.type()).isEqualTo("REMOVE");
      assertThat(e.instanceId()).isEqualTo("127.0.0.5#8080#DEFAULT");
    }));
    watch.dispose();
  }

  /**
   * Random churn from several connections on one service (re-registrations changing the metadata
   * a selector selects by), subscribers with different views:
   * for every query taken during the churn, folding the subscriber's events up to the query's
   * revision gives exactly the query's instances and protection.
   */
  @Test
  void foldingASubscribersEventsGivesServiceQueryAtTheSameRevisionUnderRandomChurn() {
    WireClient ops = fixture.connect("ops");
    ops.call("admin.service.create", "{\"service\":\"orders\",\"protectThreshold\":0.5}");
    List<String> views = List.of("{\"service\":\"orders\"}",
        "{\"service\":\"orders\",\"clusters\":[\"a\"],\"healthyOnly\":true}",
        "{\"service\":\"orders\",\"healthyOnly\":true,\"selector\":\"version in (v1,v2)\"}");
    List<List<ServiceEvent>> streams = new ArrayList<>();
    List<Disposable> watches = new ArrayList<>();
    WireClient watcher = fixture.connect("watcher");
    for (String view : views) {
      List<ServiceEvent> stream = new CopyOnWriteArrayList<>();
      streams.add(stream);
      watches.add(watcher.stream("service.subscribe", view).map(ViewsEndToEndTest::event).subscribe(stream::add));
    }
    await().atMost(WAIT).until(() -> streams.stream().allMatch(s -> !s.isEmpty()));

    Random random = new Random(11);
    List<WireClient> apps = new ArrayList<>(List.of(fixture.connect("app-0"), fixture.connect("app-1"),
        fixture.connect("app-2")));
    Map<Integer, Map<String, ServiceSnapshot>> queries = new LinkedHashMap<>();
    for (int step = 0; step < 400; step++) {
      int port = 1 + random.nextInt(12);
      String cluster = random.nextBoolean() ? "a" : "b";
      WireClient app = apps.get(random.nextInt(apps.size()));
      int action = random.nextInt(10);
      if (action < 5) {
        app.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port
            + ",\"cluster\":\"" + cluster + "\",\"weight\":" + random.nextInt(3)
            + ",\"metadata\":{\"version\":\"v" + random.nextInt(4) + "\"}}}");
      } else if (action < 7) {
        app.request("instance.deregister", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":"
            + port + ",\"cluster\":\"" + cluster + "\"}}").onErrorResume(e -> reactor.core.publisher.Mono.empty())
            .block(WAIT); // FORBIDDEN when another connection owns it: part of the churn
      } else if (action < 9) {
        ops.request("admin.instance.patch", disable(port, cluster, random.nextBoolean()))
            .onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(WAIT); // NOT_FOUND when absent
      } else {
        int index = random.nextInt(apps.size());
        apps.remove(index).close(); // releases what it owned
        apps.add(fixture.connect("app-" + (step + 3)));
      }
      if (step % 20 == 0) {
        Map<String, ServiceSnapshot> atStep = new LinkedHashMap<>();
        for (String view : views) {
          atStep.put(view, ops.call("service.query", view, ServiceSnapshot.class));
        }
        queries.put(step, atStep);
      }
    }
    Map<String, ServiceSnapshot> last = new LinkedHashMap<>();
    for (String view : views) {
      last.put(view, ops.call("service.query", view, ServiceSnapshot.class));
    }
    queries.put(400, last);

    for (int v = 0; v < views.size(); v++) {
      List<ServiceEvent> stream = streams.get(v);
      ServiceSnapshot finalView = last.get(views.get(v));
      await().atMost(WAIT).untilAsserted(() ->
          assertThat(Fold.upTo(stream, finalView.revision()).instances()).isEqualTo(Fold.of(finalView).instances()));
      for (Map.Entry<Integer, Map<String, ServiceSnapshot>> query : queries.entrySet()) {
        ServiceSnapshot expected = query.getValue().get(views.get(v));
        Fold folded = Fold.upTo(stream, expected.revision());
        assertThat(folded).as("view %s folded up to step %d (revision %d)", views.get(v), query.getKey(),
            expected.revision()).isEqualTo(Fold.of(expected));
      }
    }
    watches.forEach(Disposable::dispose);
  }

  /** A view as a subscriber folds it: instances by id, and whether protection is triggered. */
  private record Fold(Map<String, InstanceBody> instances, boolean protectionTriggered) {
    static Fold of(ServiceSnapshot snapshot) {
      Map<String, InstanceBody> byId = new LinkedHashMap<>();
      snapshot.instances().forEach(i -> byId.put(i.instanceId(), i));
      return new Fold(Map.copyOf(byId), snapshot.protectionTriggered());
    }

    /** Applies, in order, every event whose revision is at most {@code revision}. */
    static Fold upTo(List<ServiceEvent> events, long revision) {
      Map<String, InstanceBody> byId = new LinkedHashMap<>();
      boolean protection = false;
      Set<Long> seen = new HashSet<>();
      long previous = -1;
      for (ServiceEvent event : events) {
        if (event.revision() > revision) {
          break;
        }
        assertThat(event.revision()).as("revisions strictly increase").isGreaterThan(previous);
        assertThat(seen.add(event.revision())).isTrue();
        previous = event.revision();
        switch (event.type()) {
          case "SNAPSHOT" -> {
            byId.clear();
            event.instances().forEach(i -> byId.put(i.instanceId(), i));
            protection = Boolean.TRUE.equals(event.protectionTriggered());
          }
          case "UPSERT" -> byId.put(event.instance().instanceId(), event.instance());
          case "REMOVE" -> byId.remove(event.instanceId());
          case "SERVICE_DELETED" -> byId.clear();
          default -> throw new AssertionError("unknown event " + event.type());
        }
      }
      return new Fold(Map.copyOf(byId), protection);
    }
  }

  /**
   * A selector narrows a view over the wire and over HTTP; a bad one is refused naming the field
   * and the position, and the connection goes on.
   */
  @Test
  void aSelectorNarrowsTheViewAndABadOneIsRefusedWithoutClosingTheConnection() throws Exception {
    WireClient app = fixture.connect("app");
    for (int port = 1; port <= 4; port++) {
      app.call("instance.register", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port
          + ",\"metadata\":{\"version\":\"v" + (port % 2 + 1) + "\"" + (port == 4 ? ",\"canary\":\"yes\"" : "")
          + "}}}");
    }
    ServiceSnapshot v1 = app.call("service.query", "{\"service\":\"orders\",\"selector\":\"version=v1,!canary\"}",
        ServiceSnapshot.class);
    assertThat(v1.instances()).extracting(InstanceBody::port).containsExactly(2);

    Throwable error = app.stream("service.subscribe", "{\"service\":\"orders\",\"selector\":\"version in v1\"}")
        .then().materialize().block(WAIT).getThrowable();
    var refused = WireClient.errorOf(error);
    assertThat(refused.code()).isEqualTo("INVALID_PARAM");
    assertThat(refused.message()).isEqualTo("selector is not a valid selector: at position 12, expected '(' to "
        + "open the values of 'version' (found 'v')");
    assertThat(app.call("service.query", "{\"service\":\"orders\",\"selector\":\"version=v2\"}",
        ServiceSnapshot.class).instances()).extracting(InstanceBody::port).containsExactlyInAnyOrder(1, 3);

    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + fixture.server().httpPort() + "/api/v1/services/public/DEFAULT_GROUP/orders?selector=";
    var good = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base
        + java.net.URLEncoder.encode("canary in (yes)", java.nio.charset.StandardCharsets.UTF_8))).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(good.statusCode()).isEqualTo(200);
    assertThat(JsonCodec.json().decode(good.body(), ServiceSnapshot.class).instances()).extracting(InstanceBody::port)
        .containsExactly(4);
    var bad = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "version%3D")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("INVALID_PARAM").contains("at position 9, expected a value for 'version'");
  }
}
