package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ChangeCause;
import io.reactiveregistry.server.core.LifecycleConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** Every cause the audit trail knows, each provoked over the wire the way it happens in a fleet. */
class AuditCausesEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      // Empty services go after 300 ms; no self-preservation, so missed heartbeats always count.
      .withLifecycle(new LifecycleConfig(Duration.ofMillis(300), Duration.ofMinutes(10), false, Duration.ofSeconds(60),
          0.85))
      .withHealthChecks(new ServerConfig.HealthChecks(Duration.ofMillis(200), Duration.ofMillis(1_000), 4)));
  private final List<TraceEvent> trace = new CopyOnWriteArrayList<>();
  private Disposable tracing;

  @AfterEach
  void stop() {
    tracing.dispose();
    fixture.close();
  }

  private List<String> causes() {
    return trace.stream().map(TraceEvent::cause).toList();
  }

  @Test
  void everyCauseAppearsWithItsServiceInstanceAndConnection() {
    WireClient ops = fixture.connect("ops");
    WireClient app = fixture.connect("app");
    tracing = ops.stream("admin.trace", "{}").map(json -> JsonCodec.json().decode(json, TraceEvent.class))
        .subscribe(trace::add);
    await().atMost(WAIT).until(() ->
        fixture.server().meters().get("registry.trace.subscribers").gauge().value() == 1);

    ops.call("admin.service.create", "{\"service\":\"payments\"}");
    app.call("instance.register", Registrations.registration("orders", "127.0.0.5", 8080));
    ops.call("admin.instance.patch", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},"
        + "\"weight\":0}");
    app.call("instance.deregister", Registrations.registration("orders", "127.0.0.5", 8080));

    // Silent for 300 ms: unhealthy; a heartbeat makes it healthy; silent for 2 s: removed.
    String quiet = Registrations.registration("orders", "127.0.0.6", 8080, "\"metadata\":{"
        + "\"preserved.heart.beat.interval\":\"100\",\"preserved.heart.beat.timeout\":\"300\","
        + "\"preserved.ip.delete.timeout\":\"2000\"}");
    app.call("instance.register", quiet);
    await().atMost(WAIT).until(() -> causes().contains("HEARTBEAT_TIMEOUT"));
    app.fire("instance.heartbeat", quiet);
    await().atMost(WAIT).until(() -> causes().contains("HEARTBEAT"));
    await().atMost(WAIT).until(() -> causes().stream().filter("HEARTBEAT_TIMEOUT"::equals).count() == 2);

    // Nothing listens on port 1 of loopback: the first check marks it unhealthy.
    ops.call("instance.register", "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.1\","
        + "\"port\":1}}");
    await().atMost(WAIT).until(() -> causes().contains("HEALTH_CHECK"));

    WireClient shortLived = fixture.connect("short-lived");
    shortLived.call("instance.register", Registrations.registration("batch-job", "127.0.0.7", 9000));
    shortLived.close(); // CONNECTION_CLOSED; then batch-job is empty for 300 ms: CLEANUP
    await().atMost(WAIT).until(() -> causes().contains("CLEANUP"));

    // REPLICATED and MEMBER_LOST need other members: ClusterEndToEndTest, ReplicationEndToEndTest.
    assertThat(causes()).containsAll(Arrays.stream(ChangeCause.values())
        .filter(c -> c != ChangeCause.REPLICATED && c != ChangeCause.MEMBER_LOST).map(Enum::name).toList());
    assertThat(trace).filteredOn(e -> "HEALTH_CHECK".equals(e.cause())).first().satisfies(e -> {
      assertThat(e.service()).isEqualTo("db");
      assertThat(e.instanceId()).isEqualTo("127.0.0.1#1#DEFAULT");
      assertThat(e.connection()).as("the server made this change itself").isNull();
    });
    assertThat(trace).filteredOn(e -> "OVERRIDE".equals(e.cause())).singleElement()
        .satisfies(e -> assertThat(e.connection()).startsWith("ops@127.0.0.1:"));
    assertThat(trace).filteredOn(e -> "CLEANUP".equals(e.cause())).singleElement().satisfies(e -> {
      assertThat(e.service()).isEqualTo("batch-job");
      assertThat(e.instanceId()).isNull();
    });
    assertThat(trace).extracting(TraceEvent::revision).isSorted();
  }
}
