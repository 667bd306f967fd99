package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batch registration against a real server (heartbeat timeout 1 s, removal after 2 s): one frame
 * keeps the batch alive, a later batch replaces it, a restarted server gets it back whole, and
 * deregistering removes it.
 */
class BatchRegistrationTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(10);

  private RegistryServer server = TestServers.start(0);
  private final RegistryClient app = RegistryClient.builder().servers(TestServers.address(server))
      .clientName("batch-app").reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(300)).build();
  private final RegistryClient witness = RegistryClient.builder().servers(TestServers.address(server))
      .clientName("witness").reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(300)).build();

  @AfterEach
  void stop() {
    app.closeAndWait();
    witness.closeAndWait();
    server.disposeNow(Duration.ofSeconds(5));
  }

  private static InstanceBody instance(int port) {
    return InstanceBody.of("127.0.0.5", port, null, 1.0, Map.of());
  }

  private List<Integer> ports() {
    return witness.query(ORDERS, List.of(), true).block(WAIT).instances().stream().map(InstanceBody::port)
        .sorted().toList();
  }

  @Test
  void aBatchIsHeartbeatedReplacedRedoneAfterARestartAndDeregistered() {
    BatchRegistration first = app.registerBatch(ORDERS, List.of(instance(8081), instance(8082), instance(8083)))
        .block(WAIT);
    assertThat(first.instanceIds()).containsExactlyInAnyOrder("127.0.0.5#8081#DEFAULT", "127.0.0.5#8082#DEFAULT",
        "127.0.0.5#8083#DEFAULT");
    assertThat(first.heartbeatInterval()).isEqualTo(Duration.ofMillis(100));
    assertThat(first.isActive()).isTrue();
    assertThat(ports()).containsExactly(8081, 8082, 8083);

    // Well past the heartbeat timeout (1 s) and the removal (2 s): the batch's heartbeats keep it.
    await().pollDelay(Duration.ofMillis(2_500)).atMost(WAIT).until(() -> true);
    assertThat(ports()).containsExactly(8081, 8082, 8083);

    BatchRegistration second = app.registerBatch(ORDERS, List.of(instance(8082), instance(8084))).block(WAIT);
    assertThat(first.isActive()).as("replaced").isFalse();
    assertThat(app.batches()).containsExactly(second);
    assertThat(ports()).containsExactly(8082, 8084);

    int port = server.tcpPort();
    server.disposeNow(Duration.ofSeconds(5));
    await().atMost(WAIT).until(() -> !second.isActive());
    server = TestServers.start(port);
    // The witness reads live only once it is connected again: until then it answers from what it
    // saw last (the client's outage rule), which would be the batch before the restart.
    await().atMost(WAIT).until(() -> witness.isConnected() && !witness.isUnreachable());
    await().atMost(WAIT).untilAsserted(() -> assertThat(ports()).containsExactly(8082, 8084));
    await().atMost(WAIT).until(second::isActive);

    second.deregister().block(WAIT);
    assertThat(ports()).isEmpty();
    assertThat(app.batches()).isEmpty();
  }

  @Test
  void oneBadInstanceRefusesTheWholeBatchBeforeSending() {
    assertThatThrownBy(() -> app.registerBatch(ORDERS, List.of(instance(8081), instance(70_000))).block(WAIT))
        .isInstanceOfSatisfying(RegistryErrorException.class,
            refused -> assertThat(refused.code()).isEqualTo(ErrorCode.INVALID_PARAM))
        .hasMessageContaining("instance.port");
    assertThat(app.batches()).isEmpty();
  }
}
