package io.reactiveregistry.server.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.e2e.ServerFixture;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Nacos's check of quiet connections ({@code ClientDetectionRequest}), on a real gRPC port with
 * the server's time moved by the test: a set-up connection that has sent nothing for 10 s is asked
 * whether it is alive; one that answers keeps its instances, healthy, past the heartbeat timeouts;
 * one that does not answer within 3 s is closed, its instances released at once and its next call
 * answered "unregistered" (on which a Nacos client connects again).
 */
class NacosQuietConnectionsTest {
  static final Duration WAIT = Duration.ofSeconds(10);
  static final String ANSWERED = "registry_nacos_quiet_checks_total{outcome=\"answered\"}";
  final ManualClock clock = new ManualClock(1_000_000);
  final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withNacos(new NacosDoor.Settings(0, 0)), clock);
  final RegistryServer server = fixture.server();
  final NacosDoor door = Objects.requireNonNull(server.nacos());
  final ManagedChannel answering = channel();
  final ManagedChannel silent = channel();

  @AfterEach
  void stop() throws InterruptedException {
    answering.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    silent.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    fixture.close();
  }

  ManagedChannel channel() {
    return RawNacos.channel(server.nacosGrpcPort());
  }

  double metric(String series) throws Exception {
    return RawNacos.metric(server.httpPort(), series);
  }

  List<InstanceView> orders() {
    return server.runtime().read(reads -> reads.view(ServiceKey.of("public", "DEFAULT_GROUP", "orders"),
        ViewFilter.ALL)).instances();
  }

  @Test
  void aQuietConnectionIsAskedWhetherItIsAliveAndClosedWhenItDoesNotAnswer() throws Exception {
    RawNacos.Stream alive = new RawNacos.Stream(answering, true);
    alive.next("SetupAckRequest");
    RawNacos.Stream gone = new RawNacos.Stream(silent, false);
    gone.next("SetupAckRequest");
    RawNacos.register(answering, 9001);
    RawNacos.register(silent, 9002);
    assertThat(orders()).hasSize(2);

    clock.advance(Duration.ofMillis(NacosRequests.QUIET_MILLIS + 1_000));
    Payload asked = alive.next("ClientDetectionRequest");
    assertThat(RawNacos.json(asked).get("module").asText()).isEqualTo("internal");
    gone.next("ClientDetectionRequest");
    // The answer taken before the time moves on (on a loaded machine it can take a while to arrive).
    await().atMost(WAIT).until(() -> metric(ANSWERED) == 1);
    RawNacos.awaitAWholeLook(door); // nobody is closed before the time to answer is up
    assertThat(orders()).hasSize(2);
    assertThat(gone.ended.get()).isNull();

    // Past the time to answer, and at the heartbeat timeout's 15 s since the registrations.
    clock.advance(Duration.ofMillis(NacosRequests.ANSWER_WITHIN_MILLIS + 1_000));
    await().atMost(WAIT).until(() -> orders().size() == 1);
    assertThat(orders().get(0).port()).isEqualTo(9001);
    assertThat(orders().get(0).healthy()).as("kept alive by its answer").isTrue();
    await().atMost(WAIT).until(() -> gone.ended.get() != null);
    assertThat(Status.fromThrowable(gone.ended.get()).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(Status.fromThrowable(gone.ended.get()).getDescription()).contains("ClientDetectionRequest");
    assertThat(metric("registry_nacos_quiet_checks_total{outcome=\"asked\"}")).isEqualTo(2);
    assertThat(metric("registry_nacos_quiet_checks_total{outcome=\"closed\"}")).isEqualTo(1);
    Payload late = RawNacos.call(silent, "HealthCheckRequest", "{}");
    assertThat(RawNacos.json(late).get("errorCode").asInt()).as("unregistered: a Nacos client connects again")
        .isEqualTo(301);

    // The one that answered is asked again when quiet again, and stays.
    clock.advance(Duration.ofMillis(NacosRequests.QUIET_MILLIS + 1_000));
    alive.next("ClientDetectionRequest");
    await().atMost(WAIT).until(() -> metric(ANSWERED) == 2);
    clock.advance(Duration.ofMillis(NacosRequests.ANSWER_WITHIN_MILLIS + 1_000));
    RawNacos.awaitAWholeLook(door);
    assertThat(orders()).extracting(InstanceView::port).containsExactly(9001);
    assertThat(alive.ended.get()).isNull();
    assertThat(metric("registry_nacos_quiet_checks_total{outcome=\"asked\"}")).isEqualTo(3);
    assertThat(metric("registry_nacos_quiet_checks_total{outcome=\"closed\"}")).isEqualTo(1);
  }
}
