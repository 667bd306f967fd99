package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceDetails;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceHistory;
import io.reactiveregistry.server.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.tcp.TcpServer;

/** Persistent instances checked against real TCP and HTTP servers that the test starts and flips. */
class HealthCheckTest {
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      // A generous timeout: on a loaded machine a passing check must not time out and flip.
      .withHealthChecks(new ServerConfig.HealthChecks(Duration.ofMillis(200), Duration.ofMillis(1_500), 8)));
  private final List<DisposableServer> backends = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    backends.forEach(DisposableServer::disposeNow);
    fixture.close();
  }

  private DisposableServer tcpBackend(int port) {
    DisposableServer server = TcpServer.create().host("127.0.0.1").port(port).handle((in, out) -> out.neverComplete())
        .bindNow();
    backends.add(server);
    return server;
  }

  private InstanceBody only(WireClient client, String service) {
    List<InstanceBody> instances = client.call("service.query", "{\"service\":\"" + service + "\"}",
        ServiceSnapshot.class).instances();
    assertThat(instances).hasSize(1);
    return instances.get(0);
  }

  /** The last check of a service's only instance, as admin.service.instances shows it. */
  private InstanceDetails.LastCheck lastCheck(WireClient client, String service) {
    InstanceDetails details = client.call("admin.service.instances", "{\"service\":\"" + service + "\"}",
        InstanceDetails.class);
    assertThat(details.instances()).hasSize(1);
    return details.instances().get(0).lastCheck();
  }

  /** Why the service's instance was last marked unhealthy, as the audit history kept it. */
  private String lastFlipReason(WireClient client, String service) {
    List<TraceEvent> flips = client.call("admin.trace.query", "{\"service\":\"" + service
        + "\",\"cause\":\"HEALTH_CHECK\"}", TraceHistory.class).events();
    return flips.isEmpty() ? null : flips.get(flips.size() - 1).reason();
  }

  @Test
  void aPersistentInstanceTurnsUnhealthyWhenItsPortClosesAndHealthyWhenItReopens() {
    DisposableServer backend = tcpBackend(0);
    int port = backend.port();
    WireClient ops = fixture.connect("ops");
    ops.call("instance.register", "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.1\",\"port\":"
        + port + "}}");
    List<TraceEvent> trace = new CopyOnWriteArrayList<>();
    Disposable tracing = ops.stream("admin.trace", "{\"service\":\"db\"}")
        .map(json -> JsonCodec.json().decode(json, TraceEvent.class)).subscribe(trace::add);

    await().atMost(Duration.ofSeconds(5)).until(() -> lastCheck(ops, "db") != null);
    assertThat(lastCheck(ops, "db")).satisfies(check -> {
      assertThat(check.healthy()).isTrue();
      assertThat(check.reason()).isEqualTo("connected");
      assertThat(check.latencyMs()).isBetween(0L, 1_500L);
    });
    backend.disposeNow();
    await().atMost(Duration.ofSeconds(5)).until(() -> !only(ops, "db").healthy());
    assertThat(lastCheck(ops, "db").reason()).isEqualTo("connection refused");
    assertThat(lastFlipReason(ops, "db")).isEqualTo("connection refused");
    tcpBackend(port);
    await().atMost(Duration.ofSeconds(5)).until(() -> only(ops, "db").healthy());
    assertThat(lastFlipReason(ops, "db")).isEqualTo("connected");

    // Unhealthy is never removed, and each flip is in the audit trail as a health check.
    await().atMost(Duration.ofSeconds(5)).until(() ->
        trace.stream().filter(e -> "HEALTH_CHECK".equals(e.cause())).count() >= 2);
    tracing.dispose();
  }

  @Test
  void anHttpHealthPathDecidesByTheStatusCode() {
    AtomicInteger status = new AtomicInteger(200);
    DisposableServer backend = HttpServer.create().host("127.0.0.1").port(0)
        .route(routes -> routes.get("/healthz", (request, response) ->
            response.status(HttpResponseStatus.valueOf(status.get())).sendString(Mono.just("ok"))))
        .bindNow();
    backends.add(backend);
    WireClient ops = fixture.connect("ops");
    ops.call("instance.register", "{\"service\":\"api\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.1\","
        + "\"port\":" + backend.port() + ",\"metadata\":{\"health.http.path\":\"/healthz\"}}}");

    await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(3)).until(() -> only(ops, "api").healthy());
    assertThat(lastCheck(ops, "api").reason()).isEqualTo("HTTP 200");
    status.set(503);
    await().atMost(Duration.ofSeconds(5)).until(() -> !only(ops, "api").healthy());
    assertThat(lastFlipReason(ops, "api")).isEqualTo("HTTP 503");
    assertThat(lastCheck(ops, "api")).satisfies(check -> {
      assertThat(check.healthy()).isFalse();
      assertThat(check.reason()).isEqualTo("HTTP 503");
    });
    status.set(302);
    await().atMost(Duration.ofSeconds(5)).until(() -> only(ops, "api").healthy());
    assertThat(lastFlipReason(ops, "api")).isEqualTo("HTTP 302");
  }

  @Test
  void aCheckThatGetsNoAnswerInTimeSaysItTimedOut() {
    // Accepts the request and never answers it.
    DisposableServer backend = HttpServer.create().host("127.0.0.1").port(0)
        .route(routes -> routes.get("/healthz", (request, response) -> Mono.never()))
        .bindNow();
    backends.add(backend);
    WireClient ops = fixture.connect("ops");
    ops.call("admin.service.create", "{\"service\":\"slow\",\"ephemeral\":false,"
        + "\"metadata\":{\"health.check.timeout\":\"300\"}}");
    ops.call("instance.register", "{\"service\":\"slow\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.1\","
        + "\"port\":" + backend.port() + ",\"metadata\":{\"health.http.path\":\"/healthz\"}}}");

    await().atMost(Duration.ofSeconds(5)).until(() -> !only(ops, "slow").healthy());
    assertThat(lastFlipReason(ops, "slow")).isEqualTo("timed out after 300 ms");
    assertThat(lastCheck(ops, "slow").latencyMs()).isGreaterThanOrEqualTo(300);
  }

  @Test
  void anHttpsHealthPathIsCheckedOverTlsTrustingTheConfiguredCa(@TempDir Path dir) throws Exception {
    TestCertificates ca = TestCertificates.authority(dir, "health-ca");
    TestCertificates rogue = TestCertificates.authority(dir, "rogue-ca");
    AtomicInteger status = new AtomicInteger(200);
    DisposableServer trusted = httpsBackend(ca.issue("api", true), status);
    DisposableServer untrusted = httpsBackend(rogue.issue("api", true), status);
    try (ServerFixture checking = new ServerFixture(ServerConfig.ephemeralLoopback().withHealthChecks(
        new ServerConfig.HealthChecks(Duration.ofMillis(200), Duration.ofMillis(1_500), 8, ca.certificate())))) {
      WireClient ops = checking.connect("ops");
      for (DisposableServer backend : List.of(trusted, untrusted)) {
        ops.call("instance.register", "{\"service\":\"api-" + backend.port() + "\",\"ephemeral\":false,"
            + "\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + backend.port() + ",\"metadata\":{"
            + "\"health.http.path\":\"/healthz\",\"health.http.scheme\":\"https\"}}}");
      }

      await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(3))
          .until(() -> only(ops, "api-" + trusted.port()).healthy());
      // A certificate the registry does not trust fails the check.
      await().atMost(Duration.ofSeconds(5)).until(() -> !only(ops, "api-" + untrusted.port()).healthy());
      assertThat(lastFlipReason(ops, "api-" + untrusted.port())).startsWith("TLS: certificate not trusted");
      status.set(503);
      await().atMost(Duration.ofSeconds(5)).until(() -> !only(ops, "api-" + trusted.port()).healthy());
    }
  }

  private DisposableServer httpsBackend(Path[] certificate, AtomicInteger status) throws Exception {
    SslContext tls = SslContextBuilder.forServer(certificate[0].toFile(), certificate[1].toFile()).build();
    DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).secure(spec -> spec.sslContext(tls))
        .route(routes -> routes.get("/healthz", (request, response) ->
            response.status(HttpResponseStatus.valueOf(status.get())).sendString(Mono.just("ok"))))
        .bindNow();
    backends.add(server);
    return server;
  }

  @Test
  void aServiceCanTurnItsChecksOff() {
    WireClient ops = fixture.connect("ops");
    ops.call("admin.service.create", "{\"service\":\"external\",\"ephemeral\":false,"
        + "\"metadata\":{\"health.check.enabled\":\"false\"}}");
    // Nothing listens on port 1 of loopback: a check would fail at once.
    ops.call("instance.register", "{\"service\":\"external\",\"ephemeral\":false,"
        + "\"instance\":{\"ip\":\"127.0.0.1\",\"port\":1}}");

    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> only(ops, "external").healthy());
  }

  @Test
  void anInstanceCanTurnItsOwnChecksOff() {
    WireClient ops = fixture.connect("ops");
    // Nothing listens on port 1 of loopback: a check of either would fail at once.
    ops.call("instance.register", "{\"service\":\"mixed\",\"ephemeral\":false,"
        + "\"instance\":{\"ip\":\"127.0.0.1\",\"port\":1,\"metadata\":{\"health.check.enabled\":\"false\"}}}");
    ops.call("instance.register", "{\"service\":\"mixed\",\"ephemeral\":false,"
        + "\"instance\":{\"ip\":\"127.0.0.2\",\"port\":1}}");

    await().atMost(Duration.ofSeconds(5)).until(() -> !health(ops, "mixed").get("127.0.0.2"));
    // Checks every 200 ms: the instance that turned its own checks off stays healthy through five rounds.
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
        .until(() -> health(ops, "mixed").get("127.0.0.1"));
  }

  /** Each instance's health by its address. */
  private Map<String, Boolean> health(WireClient client, String service) {
    return client.call("service.query", "{\"service\":\"" + service + "\"}", ServiceSnapshot.class).instances()
        .stream().collect(Collectors.toMap(InstanceBody::ip, InstanceBody::healthy));
  }
}
