package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.BatchResult;
import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.protocol.message.ConnectionList;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceDetails;
import io.reactiveregistry.protocol.message.NamespaceList;
import io.reactiveregistry.protocol.message.NamespaceSummary;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceDetail;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSubscribers;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceHistory;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;

/**
 * The whole contract, every route, run once per transport (as rsocket-java runs one transport
 * test per transport): what works over TCP works the same over WebSocket.
 */
class ContractOverTransportsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final ServerFixture fixture = new ServerFixture();
  /** Every route the test used, to prove it used them all. */
  private final Set<Route> used = EnumSet.noneOf(Route.class);

  enum Transport {
    TCP(ServerFixture::connect),
    WEBSOCKET(ServerFixture::connectWebSocket);

    final BiFunction<ServerFixture, String, WireClient> connect;

    Transport(BiFunction<ServerFixture, String, WireClient> connect) {
      this.connect = connect;
    }
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  private String call(WireClient client, String route, String body) {
    used.add(Route.byName(route).orElseThrow());
    return client.call(route, body);
  }

  private <T> T call(WireClient client, String route, String body, Class<T> type) {
    return JsonCodec.json().decode(call(client, route, body), type);
  }

  private <T> List<T> stream(WireClient client, String route, String body, Class<T> type, List<Disposable> open) {
    used.add(Route.byName(route).orElseThrow());
    List<T> received = new CopyOnWriteArrayList<>();
    open.add(client.stream(route, body).map(json -> JsonCodec.json().decode(json, type)).subscribe(received::add));
    return received;
  }

  private static String orders(String rest) {
    return "{\"namespace\":\"shop\",\"group\":\"web\",\"service\":\"orders\"" + rest + "}";
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void everyRouteOfTheContract(Transport transport) {
    WireClient app = transport.connect.apply(fixture, "app");
    WireClient ops = transport.connect.apply(fixture, "ops");
    List<Disposable> open = new CopyOnWriteArrayList<>();

    assertThat(call(ops, "server.info", "{}", ServerInfo.class).protocol()).isEqualTo(1);
    List<TraceEvent> trace = stream(ops, "admin.trace", "{\"namespace\":\"shop\"}", TraceEvent.class, open);
    List<ServiceEvent> events = stream(ops, "service.subscribe", orders(""), ServiceEvent.class, open);
    List<CatalogEvent> catalog = stream(ops, "catalog.subscribe", "{\"namespace\":\"shop\"}", CatalogEvent.class,
        open);
    await().atMost(WAIT).until(() -> events.size() == 1 && fixture.server().runtime().subscriberCount() == 1
        && catalog.size() == 1);
    assertThat(catalog.get(0).type()).isEqualTo("SNAPSHOT");
    assertThat(catalog.get(0).services()).isEmpty();

    ServiceDetail created = call(ops, "admin.service.create", orders(",\"protectThreshold\":0.25"),
        ServiceDetail.class);
    assertThat(created.protectThreshold()).isEqualTo(0.25);
    assertThat(call(ops, "admin.service.update", orders(",\"metadata\":{\"team\":\"shop\"}"), ServiceDetail.class)
        .metadata()).containsEntry("team", "shop");
    assertThat(call(ops, "admin.service.get", orders(""), ServiceDetail.class).protectThreshold()).isEqualTo(0.25);

    RegisterResult registered = call(app, "instance.register",
        orders(",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}"), RegisterResult.class);
    assertThat(registered.instanceId()).isEqualTo("127.0.0.5#8080#DEFAULT");
    // A heartbeat naming an instance the server does not have re-creates it under the sender.
    used.add(Route.INSTANCE_HEARTBEAT);
    app.fire("instance.heartbeat", orders(",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":8080}"));
    await().atMost(WAIT).until(() -> call(ops, "service.query", orders(""), ServiceSnapshot.class).instances().size()
        == 2);
    // What this server's connections own, as a cluster peer follows it: a snapshot first.
    used.add(Route.CLUSTER_REPLICATE);
    List<String> claims = new CopyOnWriteArrayList<>();
    open.add(ops.stream("cluster.replicate", "{\"node\":\"tool\"}").subscribe(claims::add));
    await().atMost(WAIT).until(() -> !claims.isEmpty());
    assertThat(claims.get(0)).contains("\"type\":\"SNAPSHOT\"", "\"ip\":\"127.0.0.5\"", "\"ip\":\"127.0.0.6\"");

    BatchResult batch = call(app, "instance.batch-register", orders(",\"instances\":["
        + "{\"ip\":\"127.0.0.5\",\"port\":8080},{\"ip\":\"127.0.0.7\",\"port\":8080}]"), BatchResult.class);
    assertThat(batch.instanceIds()).containsExactly("127.0.0.5#8080#DEFAULT", "127.0.0.7#8080#DEFAULT");
    assertThat(call(ops, "service.query", orders(""), ServiceSnapshot.class).instances())
        .extracting(InstanceBody::ip).containsExactlyInAnyOrder("127.0.0.5", "127.0.0.7");
    assertThat(call(ops, "service.list", "{\"namespace\":\"shop\"}", ServiceList.class).services())
        .extracting(ServiceSummary::service, ServiceSummary::instanceCount).containsExactly(
            org.assertj.core.groups.Tuple.tuple("orders", 2));
    assertThat(call(ops, "namespace.list", "{}", NamespaceList.class).namespaces())
        .contains(new NamespaceSummary("shop", 1, 2, 2));

    String ref = ",\"instance\":{\"ip\":\"127.0.0.7\",\"port\":8080}";
    assertThat(call(ops, "admin.instance.patch", orders(ref + ",\"weight\":0"), InstanceBody.class).weight())
        .isZero();
    // What an operator sees of instances and connections: owners, overrides, heartbeats, subscriptions.
    InstanceDetails details = call(ops, "admin.service.instances", orders(""), InstanceDetails.class);
    assertThat(details.instances()).extracting(d -> d.instance().ip(), d -> d.owner().startsWith("app@"),
        d -> d.override() == null ? null : d.override().weight()).containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("127.0.0.5", true, null),
            org.assertj.core.groups.Tuple.tuple("127.0.0.7", true, 0.0));
    assertThat(details.instances()).allSatisfy(d -> assertThat(d.lastHeartbeat()).isPositive());
    List<ConnectionList.Connection> connections = call(ops, "admin.connections", "{}", ConnectionList.class)
        .connections();
    assertThat(connections).filteredOn(c -> c.client().equals("app")).singleElement().satisfies(c -> {
      assertThat(c.instances()).isEqualTo(2);
      assertThat(c.transport()).isEqualTo(transport == Transport.TCP ? "tcp" : "websocket");
      assertThat(details.instances()).allSatisfy(d -> assertThat(d.connection()).isEqualTo(c.id()));
    });
    assertThat(connections).filteredOn(c -> c.client().equals("ops")).singleElement()
        .satisfies(c -> assertThat(c.subscriptions()).isEqualTo(4)); // the trail, the view, the catalog, the replication feed
    assertThat(call(ops, "admin.instance.update", orders(ref), InstanceBody.class).weight()).isEqualTo(1.0);
    assertThat(call(app, "instance.deregister", orders(ref), DeregisterResult.class).removed()).isTrue();

    call(ops, "admin.service.create", "{\"namespace\":\"shop\",\"service\":\"spare\"}");
    assertThat(call(ops, "admin.service.delete", "{\"namespace\":\"shop\",\"service\":\"spare\"}"))
        .isEqualTo("{\"deleted\":true}");

    // The subscriber and the audit trail saw all of it, in order, over this transport.
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(events).extracting(ServiceEvent::type).containsSubsequence("SNAPSHOT", "SNAPSHOT", "UPSERT",
          "UPSERT", "REMOVE", "UPSERT", "UPSERT", "UPSERT", "REMOVE");
      assertThat(trace).extracting(TraceEvent::cause).containsSubsequence("SERVICE_ADMIN", "SERVICE_ADMIN",
          "REGISTER", "REGISTER", "DEREGISTER", "REGISTER", "OVERRIDE", "OVERRIDE", "DEREGISTER", "SERVICE_ADMIN",
          "SERVICE_ADMIN");
    });
    assertThat(events).extracting(ServiceEvent::revision).isSorted();
    // The catalog: orders appeared and changed; spare came and went (its UPSERT may have been
    // replaced by its REMOVE while waiting: one event per service waits).
    await().atMost(WAIT).untilAsserted(() -> assertThat(catalog.get(catalog.size() - 1)).satisfies(last -> {
      assertThat(last.type()).isEqualTo("REMOVE");
      assertThat(last.name()).isEqualTo("spare");
    }));
    assertThat(catalog).extracting(CatalogEvent::revision).isSorted();
    assertThat(catalog).filteredOn(e -> e.type().equals("UPSERT")).extracting(e -> e.service().service())
        .contains("orders");
    // A backup: this server keeps everything in memory, so there is nothing durable to copy
    // (BackupRestoreTest takes real ones); the refusal says so over either transport.
    used.add(Route.ADMIN_BACKUP);
    assertThatThrownBy(() -> ops.stream("admin.backup", "{}").blockLast(WAIT))
        .satisfies(error -> assertThat(WireClient.errorOf(error).code()).isEqualTo("NOT_FOUND"))
        .hasMessageContaining("in memory only");
    // Members: a single server has none to change (MembershipChangeTest changes a real cluster's).
    used.add(Route.ADMIN_MEMBERS_ADD);
    used.add(Route.ADMIN_MEMBERS_REMOVE);
    used.add(Route.ADMIN_MEMBERS_REPLACE);
    assertThatThrownBy(() -> call(ops, "admin.members.add", "{\"member\":\"n2=127.0.0.1:7391/7491\"}"))
        .satisfies(error -> assertThat(WireClient.errorOf(error).code()).isEqualTo("NOT_FOUND"))
        .hasMessageContaining("not a cluster member");
    assertThatThrownBy(() -> call(ops, "admin.members.remove", "{\"node\":\"n2\"}"))
        .satisfies(error -> assertThat(WireClient.errorOf(error).code()).isEqualTo("NOT_FOUND"))
        .hasMessageContaining("not a cluster member");
    assertThatThrownBy(() -> call(ops, "admin.members.replace", "{\"node\":\"n2\",\"member\":\"n3=127.0.0.1:7391/7491\"}"))
        .satisfies(error -> assertThat(WireClient.errorOf(error).code()).isEqualTo("NOT_FOUND"))
        .hasMessageContaining("not a cluster member");
    // After the fact: the history kept every change the trail showed; who watches orders: ops's view.
    assertThat(call(ops, "admin.trace.query", "{\"namespace\":\"shop\",\"service\":\"orders\"}", TraceHistory.class)
        .events()).extracting(TraceEvent::cause).containsSubsequence("SERVICE_ADMIN", "SERVICE_ADMIN", "REGISTER",
        "OVERRIDE", "OVERRIDE", "DEREGISTER");
    assertThat(call(ops, "admin.service.subscribers", orders(""), ServiceSubscribers.class).subscribers())
        .singleElement().satisfies(watch -> {
          assertThat(watch.client()).startsWith("ops@");
          assertThat(watch.transport()).isEqualTo("rsocket");
        });
    assertThat(used).as("every route of the contract").containsExactlyInAnyOrder(Route.values());

    // Closing the connection releases what it registered, over either transport.
    app.close();
    await().atMost(WAIT).until(() -> call(ops, "service.query", orders(""), ServiceSnapshot.class).instances()
        .isEmpty());
    open.forEach(Disposable::dispose);
  }
  /** A subscriber that lost its stream resumes with only what it missed (contract: sinceRevision). */
  @ParameterizedTest
  @EnumSource(Transport.class)
  void aSubscriptionResumesFromTheLastRevisionItSaw(Transport transport) {
    WireClient app = transport.connect.apply(fixture, "app");
    WireClient ops = transport.connect.apply(fixture, "ops");
    String instance5 = orders(",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}");
    app.call("instance.register", instance5);
    List<Disposable> open = new CopyOnWriteArrayList<>();
    List<ServiceEvent> first = stream(ops, "service.subscribe", orders(""), ServiceEvent.class, open);
    await().atMost(WAIT).until(() -> first.size() == 1);
    ServiceEvent snapshot = first.get(0);
    assertThat(snapshot.node()).isEqualTo(call(ops, "server.info", "{}", ServerInfo.class).nodeId());
    open.forEach(Disposable::dispose);
    await().atMost(WAIT).until(() -> fixture.server().runtime().subscriberCount() == 0);

    // Missed while away: two registrations and a deregistration.
    app.call("instance.register", orders(",\"instance\":{\"ip\":\"127.0.0.6\",\"port\":8080}"));
    app.call("instance.register", orders(",\"instance\":{\"ip\":\"127.0.0.7\",\"port\":8080}"));
    app.call("instance.deregister", instance5);

    String resume = orders(",\"sinceRevision\":" + snapshot.revision() + ",\"node\":\"" + snapshot.node() + "\"");
    List<ServiceEvent> resumed = stream(ops, "service.subscribe", resume, ServiceEvent.class, open);
    await().atMost(WAIT).until(() -> resumed.size() == 4);
    assertThat(resumed).extracting(ServiceEvent::type).containsExactly("RESUMED", "UPSERT", "UPSERT", "REMOVE");
    assertThat(resumed).extracting(ServiceEvent::revision).isSorted();
    Map<String, InstanceBody> fold = new TreeMap<>();
    snapshot.instances().forEach(i -> fold.put(i.instanceId(), i));
    for (ServiceEvent event : resumed) {
      switch (event.type()) {
        case "UPSERT" -> fold.put(event.instance().instanceId(), event.instance());
        case "REMOVE" -> fold.remove(event.instanceId());
        default -> { }
      }
    }
    assertThat(fold.values()).containsExactlyInAnyOrderElementsOf(
        call(ops, "service.query", orders(""), ServiceSnapshot.class).instances());

    // Asking to coalesce: what was pending together comes as one BATCH of the same events.
    List<ServiceEvent> batched = stream(ops, "service.subscribe",
        resume.substring(0, resume.length() - 1) + ",\"coalesce\":true}", ServiceEvent.class, open);
    await().atMost(WAIT).until(() -> batched.size() == 1);
    assertThat(batched.get(0).type()).isEqualTo("BATCH");
    assertThat(batched.get(0).revision()).isEqualTo(resumed.get(3).revision());
    assertThat(batched.get(0).events()).isEqualTo(resumed);

    // From another server's revisions: a snapshot, flagged.
    List<ServiceEvent> elsewhere = stream(ops, "service.subscribe",
        orders(",\"sinceRevision\":" + snapshot.revision() + ",\"node\":\"another-node\""), ServiceEvent.class,
        open);
    await().atMost(WAIT).until(() -> elsewhere.size() == 1);
    assertThat(elsewhere.get(0)).extracting(ServiceEvent::type, ServiceEvent::resumed)
        .containsExactly("SNAPSHOT", false);
    // Bad resumes are refused naming the field, and the connection stays usable.
    assertThat(ops.error("service.query", orders(",\"sinceRevision\":3,\"node\":\"x\"")).message())
        .contains("sinceRevision, node and coalesce are for service.subscribe");
    assertThat(ops.stream("service.subscribe", orders(",\"node\":\"x\"")).materialize().blockFirst(WAIT)
        .getThrowable()).hasMessageContaining("node is only for a resume");
    assertThat(ops.stream("service.subscribe", orders(",\"sinceRevision\":4")).materialize().blockFirst(WAIT)
        .getThrowable()).hasMessageContaining("node is required with sinceRevision");
    assertThat(call(ops, "service.query", orders(""), ServiceSnapshot.class).instances()).hasSize(2);
    open.forEach(Disposable::dispose);
  }
}
