package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A watch against a scripted server that refuses subscriptions as told (as a server still
 * starting or over its limits does): a refused first subscription ends the watch with the
 * refusal; a refused re-subscription after a reconnect is retried until the server serves it, the
 * watch going on.
 */
class WatchRetryTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final ServiceName ORDERS = ServiceName.of("orders");

  /** How many subscriptions to refuse from now on. */
  private final AtomicInteger refuseNext = new AtomicInteger();
  private final AtomicInteger subscriptions = new AtomicInteger();
  /** The instance the next snapshot holds. */
  private final AtomicReference<String> serving = new AtomicReference<>("127.0.0.5");
  private final List<RSocket> peers = new CopyOnWriteArrayList<>();
  /**
   * Below the kernel's ephemeral range: the client reconnects every few milliseconds while the
   * server is down, and an attempt's own local port could otherwise be the one the server binds again.
   */
  private final CloseableChannel server = bind(MemberPorts.free(1).get(0));
  private final int port = server.address().getPort();
  private final RegistryClient client = RegistryClient.builder()
      .servers("tcp://127.0.0.1:" + port)
      .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
      .build();

  @AfterEach
  void stop() {
    client.closeAndWait();
    server.dispose();
  }

  @Test
  void aRefusedReSubscriptionIsRetriedUntilTheServerServesIt() {
    List<ServiceView> views = new CopyOnWriteArrayList<>();
    AtomicReference<Throwable> ended = new AtomicReference<>();
    Disposable watch = client.watch(ORDERS).subscribe(views::add, ended::set);
    try {
      await().atMost(WAIT).until(() -> !views.isEmpty());
      assertThat(views.get(0).instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.5");

      refuseNext.set(3);
      serving.set("127.0.0.6");
      server.dispose();
      server.onClose().block(WAIT); // closed, so that its port can be bound again
      peers.get(0).dispose(); // the connection is lost
      CloseableChannel again = bind(port); // the server is back, refusing subscriptions at first
      try {
        await().atMost(WAIT).untilAsserted(() -> {
          ServiceView latest = views.get(views.size() - 1);
          assertThat(latest.stale()).isFalse();
          assertThat(latest.instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.6");
        });
        assertThat(ended).as("the watch goes on").hasValue(null);
        assertThat(subscriptions.get()).as("one, three refused again, one served").isEqualTo(5);
      } finally {
        again.dispose();
      }
    } finally {
      watch.dispose();
    }
  }

  @Test
  void aRefusedFirstSubscriptionEndsTheWatchWithTheRefusal() {
    refuseNext.set(1);
    AtomicReference<Throwable> ended = new AtomicReference<>();
    Disposable watch = client.watch(ORDERS).subscribe(view -> { }, ended::set);
    try {
      await().atMost(WAIT).until(() -> ended.get() != null);
      assertThat(ended.get()).isInstanceOfSatisfying(RegistryErrorException.class,
          refusal -> assertThat(refusal.code()).isEqualTo(ErrorCode.LIMIT_EXCEEDED));
      assertThat(subscriptions.get()).isEqualTo(1);
    } finally {
      watch.dispose();
    }
  }

  /** A scripted server on {@code port}: serves a snapshot of one instance per subscription, refusing as told. */
  private CloseableChannel bind(int port) {
    return RSocketServer.create((setup, peer) -> {
          peers.add(peer);
          return Mono.just(scripted());
        })
        .bind(TcpServerTransport.create("127.0.0.1", port))
        .block(WAIT);
  }

  private RSocket scripted() {
    return new RSocket() {
      @Override
      public Mono<Payload> requestResponse(Payload payload) {
        payload.release(); // server.info, asked for the cluster's members: this server does not say
        return Mono.error(refusal("UNKNOWN_ROUTE", "not served by this scripted server"));
      }

      @Override
      public Flux<Payload> requestStream(Payload payload) {
        boolean subscribe = RouteMetadata.routes(payload.sliceMetadata()).contains("service.subscribe");
        payload.release();
        if (!subscribe) {
          return Flux.error(refusal("UNKNOWN_ROUTE", "not served by this scripted server"));
        }
        subscriptions.incrementAndGet();
        if (refuseNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          return Flux.error(refusal("LIMIT_EXCEEDED", "the server is still starting"));
        }
        String ip = serving.get();
        InstanceBody instance = new InstanceBody(ip + "#8080#DEFAULT", ip, 8080, "DEFAULT", 1.0, true, true, true,
            null);
        ServiceEvent snapshot = ServiceEvent.snapshot(new ServiceSnapshot("public", "DEFAULT_GROUP", "orders", true,
            subscriptions.get(), false, List.of(instance)), "scripted");
        return Flux.just(DefaultPayload.create(JsonCodec.json().encode(snapshot))).concatWith(Flux.never());
      }
    };
  }

  private static ApplicationErrorException refusal(String code, String message) {
    return new ApplicationErrorException(JsonCodec.json().encodeToString(new ErrorBody(code, message)));
  }
}
