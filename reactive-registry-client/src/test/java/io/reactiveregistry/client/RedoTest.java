package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.server.e2e.MemberPorts;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketServer;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.DefaultPayload;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Registering again after a reconnect, against a scripted server that refuses the first attempts
 * (as a server still starting or over its limits would): the client retries until it succeeds,
 * counts the failures, heartbeats on the new connection, and says the truth in isActive meanwhile.
 */
class RedoTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** How many register requests to refuse from now on. */
  private final AtomicInteger refuseNext = new AtomicInteger();
  private final AtomicInteger registers = new AtomicInteger();
  private final AtomicInteger deregisters = new AtomicInteger();
  /** Which connection (by the order they were accepted) each heartbeat arrived on. */
  private final List<Integer> heartbeatsOn = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final List<RSocket> peers = new CopyOnWriteArrayList<>();
  /**
   * Below the kernel's ephemeral range: the client reconnects every few milliseconds while the
   * server is down, and an attempt's own local port could otherwise be the one the server binds again.
   */
  private final CloseableChannel server = bind(MemberPorts.free(1).get(0));
  private final int port = server.address().getPort();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final RegistryClient client = RegistryClient.builder()
      .servers("tcp://127.0.0.1:" + port)
      .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
      .meterRegistry(meters)
      .build();

  @AfterEach
  void stop() {
    client.closeAndWait();
    server.dispose();
  }

  @Test
  void aFailedRedoIsRetriedUntilItSucceedsAndIsActiveTellsTheTruthMeanwhile() {
    Registration registration = client.register(ServiceName.of("orders"),
        InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
    assertThat(registration.isActive()).isTrue();
    await().atMost(WAIT).until(() -> heartbeatsOn.contains(1));

    refuseNext.set(3);
    server.dispose();
    server.onClose().block(WAIT); // closed, so that its port can be bound again
    peers.get(0).dispose(); // the server closes the connection
    await().atMost(WAIT).until(() -> !client.isConnected());
    assertThat(registration.isActive()).as("not registered anywhere while disconnected").isFalse();
    CloseableChannel again = bind(port); // the server is back on its port

    try {
      await().atMost(WAIT).until(() -> registers.get() >= 2);
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(meters.counter("registry.client.redo.failures").count()).isEqualTo(3.0);
        assertThat(registration.isActive()).isTrue();
      });
      assertThat(registers.get()).as("one first registration, three refused redos, one that worked").isEqualTo(5);
      await().atMost(WAIT).until(() -> heartbeatsOn.contains(2));
    } finally {
      again.dispose();
    }
  }

  @Test
  void registeringAnInstanceAgainReplacesItsRegistrationAndDeregisteringTheNewOneEndsIt() {
    InstanceBody instance = InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of());
    Registration first = client.register(ServiceName.of("orders"), instance).block(WAIT);
    Registration second = client.register(ServiceName.of("orders"), instance).block(WAIT);
    assertThat(client.registrations()).containsExactly(second);
    assertThat(first.isActive()).as("replaced").isFalse();
    assertThat(second.isActive()).isTrue();
    assertThat(first.deregister().block(WAIT)).as("a replaced handle removes nothing").isFalse();
    assertThat(deregisters.get()).isZero();

    assertThat(second.deregister().block(WAIT)).isTrue();
    assertThat(client.registrations()).isEmpty();
    // No heartbeat stream is left (one would send every 100 ms), and a reconnect redoes nothing.
    server.dispose();
    server.onClose().block(WAIT); // closed, so that its port can be bound again
    peers.get(0).dispose();
    await().atMost(WAIT).until(() -> !client.isConnected());
    CloseableChannel again = bind(port);
    try {
      await().atMost(WAIT).until(client::isConnected);
      int heartbeats = heartbeatsOn.size();
      await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> registers.get() == 2);
      assertThat(heartbeatsOn).hasSize(heartbeats);
    } finally {
      again.dispose();
    }
  }

  /** A scripted server on {@code port}: answers registrations (refusing as told) and counts heartbeats. */
  private CloseableChannel bind(int port) {
    return RSocketServer.create((setup, peer) -> {
          peers.add(peer);
          return Mono.just(scripted(connections.incrementAndGet()));
        })
        .bind(TcpServerTransport.create("127.0.0.1", port))
        .block(WAIT);
  }

  private RSocket scripted(int connection) {
    return new RSocket() {
      @Override
      public Mono<Payload> requestResponse(Payload payload) {
        List<String> routes = RouteMetadata.routes(payload.sliceMetadata());
        boolean info = routes.contains("server.info");
        payload.release();
        if (routes.contains("instance.deregister")) {
          deregisters.incrementAndGet();
          return Mono.just(DefaultPayload.create(JsonCodec.json().encode(new DeregisterResult(true, 2))));
        }
        if (info) { // asked by the client for the cluster's members: this server does not say
          return Mono.error(new ApplicationErrorException(JsonCodec.json().encodeToString(
              new ErrorBody("UNKNOWN_ROUTE", "not served by this scripted server"))));
        }
        registers.incrementAndGet();
        if (refuseNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          return Mono.error(new ApplicationErrorException(JsonCodec.json().encodeToString(
              new ErrorBody("LIMIT_EXCEEDED", "the server is still starting"))));
        }
        return Mono.just(DefaultPayload.create(JsonCodec.json().encode(
            new RegisterResult("127.0.0.5#8080#DEFAULT", 1, 100, 1_000, 2_000))));
      }

      @Override
      public Mono<Void> fireAndForget(Payload payload) {
        if (RouteMetadata.routes(payload.sliceMetadata()).contains("instance.heartbeat")) {
          heartbeatsOn.add(connection);
        }
        payload.release();
        return Mono.empty();
      }
    };
  }
}
