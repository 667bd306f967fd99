package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.server.ServerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
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

    backend.disposeNow();
    await().atMost(Duration.ofSeconds(5)).until(() -> !only(ops, "db").healthy());
    tcpBackend(port);
    await().atMost(Duration.ofSeconds(5)).until(() -> only(ops, "db").healthy());

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
    status.set(503);
    await().atMost(Duration.ofSeconds(5)).until(() -> !only(ops, "api").healthy());
    status.set(302);
    await().atMost(Duration.ofSeconds(5)).until(() -> only(ops, "api").healthy());
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
}
