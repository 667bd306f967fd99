package io.reactiveregistry.server.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.transport.ServerLimits;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The Nacos gRPC port over a real socket, spoken by hand (gRPC's own client, Nacos's payloads):
 * the connection's setup and what happens without it, and bad input (an unknown type, a body that
 * is not JSON, a field missing, a message too large) answered as Nacos answers it, nothing changed,
 * the connection and every other one still served. Nacos's own client drives the rest in
 * {@code interop/nacos}.
 */
class NacosGrpcPortTest {
  static final Duration WAIT = Duration.ofSeconds(10);
  RegistryServer server;
  ManagedChannel channel;

  @BeforeEach
  void start() {
    ServerConfig config = ServerConfig.ephemeralLoopback().withNacos(new NacosDoor.Settings(0, 0))
        .withLimits(new ServerLimits(64 * 1024, 1_000, 32 * 1024 * 1024)
            .withConnections(new ConnectionDoor.Limits(100, 3), ServerLimits.DEFAULT_HTTP_CONNECTIONS));
    server = RegistryServer.start(config).block(WAIT);
    channel = channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.disposeNow(WAIT);
  }

  ManagedChannel channel() {
    return NettyChannelBuilder.forAddress("127.0.0.1", server.nacosGrpcPort()).usePlaintext().build();
  }

  static Payload call(ManagedChannel on, String type, String json) {
    return ClientCalls.blockingUnaryCall(on, NacosGrpcServer.REQUEST, CallOptions.DEFAULT,
        new Payload(type, "127.0.0.1", Map.of(), json.getBytes(StandardCharsets.UTF_8)));
  }

  static JsonNode body(Payload payload) throws Exception {
    return NacosJson.MAPPER.readTree(payload.body());
  }

  /** Opens the connection's stream and sets it up; what the server sends on it. */
  static BlockingQueue<Payload> setUp(ManagedChannel on) {
    BlockingQueue<Payload> received = new LinkedBlockingQueue<>();
    StreamObserver<Payload> toServer = ClientCalls.asyncBidiStreamingCall(
        on.newCall(NacosGrpcServer.BI_STREAM, CallOptions.DEFAULT), new StreamObserver<>() {
          @Override
          public void onNext(Payload value) {
            received.add(value);
          }

          @Override
          public void onError(Throwable t) {}

          @Override
          public void onCompleted() {}
        });
    toServer.onNext(new Payload("ConnectionSetupRequest", "127.0.0.1", Map.of(),
        "{\"clientVersion\":\"test\",\"labels\":{\"AppName\":\"shop\"},\"abilityTable\":{}}"
            .getBytes(StandardCharsets.UTF_8)));
    return received;
  }

  static String register(int port) {
    return "{\"namespace\":\"public\",\"serviceName\":\"orders\",\"groupName\":\"DEFAULT_GROUP\",\"type\":"
        + "\"registerInstance\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port + ",\"ephemeral\":true}}";
  }

  int instances() {
    return server.runtime().read(reads -> reads.view(ServiceKey.of("public", "DEFAULT_GROUP", "orders"),
        ViewFilter.ALL)).instances().size();
  }

  @Test
  void aConnectionIsSetUpOnItsStreamBeforeItsRequestsAreServed() throws Exception {
    Payload check = call(channel, "ServerCheckRequest", "{}");
    assertThat(check.type()).isEqualTo("ServerCheckResponse");
    assertThat(body(check).get("connectionId").asText()).isNotEmpty();
    assertThat(body(check).get("supportAbilityNegotiation").asBoolean()).isTrue();

    Payload early = call(channel, "InstanceRequest", register(9001));
    assertThat(early.type()).isEqualTo("ErrorResponse");
    assertThat(body(early).get("errorCode").asInt()).as("Nacos's 'unregistered': its client sets up again")
        .isEqualTo(301);

    BlockingQueue<Payload> pushed = setUp(channel);
    Payload ack = pushed.poll(5, TimeUnit.SECONDS);
    assertThat(ack).isNotNull();
    assertThat(ack.type()).isEqualTo("SetupAckRequest");
    assertThat(body(ack).get("abilityTable").get("supportPersistentInstanceByGrpc").asBoolean()).isTrue();

    Payload registered = call(channel, "InstanceRequest", register(9001));
    assertThat(registered.type()).as(new String(registered.body(), StandardCharsets.UTF_8))
        .isEqualTo("InstanceResponse");
    assertThat(body(registered).get("resultCode").asInt()).isEqualTo(200);
    assertThat(instances()).isEqualTo(1);

    Payload subscribed = call(channel, "SubscribeServiceRequest", "{\"serviceName\":\"orders\",\"groupName\":"
        + "\"DEFAULT_GROUP\",\"subscribe\":true,\"clusters\":\"\"}");
    assertThat(body(subscribed).get("serviceInfo").get("hosts")).hasSize(1);
    // As Nacos's server does, a first subscription is pushed the view too: a client redoing its
    // subscription after a reconnect ignores the answer and relies on this push.
    Payload current = pushed.poll(5, TimeUnit.SECONDS);
    assertThat(current).isNotNull();
    assertThat(current.type()).isEqualTo("NotifySubscriberRequest");
    assertThat(body(current).get("serviceInfo").get("hosts")).hasSize(1);
    Payload again = call(channel, "SubscribeServiceRequest", "{\"serviceName\":\"orders\",\"groupName\":"
        + "\"DEFAULT_GROUP\",\"subscribe\":true,\"clusters\":\"\"}");
    assertThat(body(again).get("serviceInfo").get("hosts")).hasSize(1);
    call(channel, "InstanceRequest", register(9002));
    // The next push is the change's: the repeated subscription was answered, not pushed.
    Payload push = pushed.poll(5, TimeUnit.SECONDS);
    assertThat(push).isNotNull();
    assertThat(push.type()).isEqualTo("NotifySubscriberRequest");
    assertThat(body(push).get("serviceInfo").get("hosts")).hasSize(2);
    assertThat(body(push).get("serviceInfo").get("name").asText()).isEqualTo("orders");
    assertThat(body(push).get("requestId").asText()).isNotEmpty();

    // The connection closes: what it registered goes with it.
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> instances() == 0);
  }

  @Test
  void badInputIsAnsweredAsNacosAnswersItAndChangesNothing() throws Exception {
    setUp(channel).poll(5, TimeUnit.SECONDS);
    assertThat(body(call(channel, "InstanceRequest", register(9001))).get("resultCode").asInt()).isEqualTo(200);
    ManagedChannel other = channel();
    try {
      setUp(other).poll(5, TimeUnit.SECONDS);

      Payload unknown = call(channel, "ConfigQueryRequest", "{}");
      assertThat(unknown.type()).isEqualTo("ErrorResponse");
      assertThat(body(unknown).get("errorCode").asInt()).isEqualTo(302);
      assertThat(body(unknown).get("message").asText()).contains("ConfigQueryRequest").contains("InstanceRequest");

      Payload notJson = call(channel, "InstanceRequest", "{not json");
      assertThat(body(notJson).get("errorCode").asInt()).isEqualTo(502);
      assertThat(body(notJson).get("message").asText()).contains("InstanceRequest");

      Payload noIp = call(channel, "InstanceRequest", register(9003).replace("\"ip\":\"127.0.0.1\",", ""));
      assertThat(body(noIp).get("errorCode").asInt()).isEqualTo(400);
      assertThat(body(noIp).get("message").asText()).contains("ip");

      Payload badType = call(channel, "InstanceRequest", register(9003).replace("registerInstance", "upsert"));
      assertThat(body(badType).get("message").asText()).contains("registerInstance or deregisterInstance");

      String large = register(9004).replace("\"ephemeral\":true", "\"ephemeral\":true,\"metadata\":{\"big\":\""
          + "x".repeat(100 * 1024) + "\"}");
      assertThatThrownBy(() -> call(channel, "InstanceRequest", large))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
              .isEqualTo(Status.Code.RESOURCE_EXHAUSTED));

      assertThat(instances()).as("nothing changed").isEqualTo(1);
      // The connection, and the other one, are still served.
      assertThat(call(channel, "HealthCheckRequest", "{}").type()).isEqualTo("HealthCheckResponse");
      assertThat(body(call(other, "InstanceRequest", register(9005))).get("resultCode").asInt()).isEqualTo(200);
      assertThat(instances()).isEqualTo(2);
    } finally {
      other.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aConnectionPastTheLimitIsAnsweredWhyAndTheOthersAreServed() throws Exception {
    // One address may hold 3: this test's channel, and two more.
    List<ManagedChannel> more = List.of(channel(), channel(), channel());
    try {
      assertThat(call(channel, "ServerCheckRequest", "{}").type()).isEqualTo("ServerCheckResponse");
      assertThat(call(more.get(0), "ServerCheckRequest", "{}").type()).isEqualTo("ServerCheckResponse");
      assertThat(call(more.get(1), "ServerCheckRequest", "{}").type()).isEqualTo("ServerCheckResponse");
      Payload refused = call(more.get(2), "ServerCheckRequest", "{}");
      assertThat(refused.type()).isEqualTo("ErrorResponse");
      assertThat(body(refused).get("errorCode").asInt()).isEqualTo(503);
      assertThat(body(refused).get("message").asText()).contains("--max-connections-per-address");

      // The refused one and another close (a refused connection counts while it is open): a new one is served.
      more.get(2).shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      more.get(0).shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      ManagedChannel again = channel();
      try {
        await().atMost(WAIT).until(() -> call(again, "ServerCheckRequest", "{}").type().equals("ServerCheckResponse"));
      } finally {
        again.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } finally {
      for (ManagedChannel each : more) {
        each.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aTcpProbeThatConnectsAndClosesIsNoConnectionAndLogsNoError() throws Exception {
    // What a load balancer's TCP health check does: connect, then close before a word of HTTP/2.
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    root.addAppender(logged);
    try {
      for (int i = 0; i < 4; i++) { // more than one address may hold: a probe is never counted
        new Socket("127.0.0.1", server.nacosGrpcPort()).close();
      }
      await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> logged.list.stream()
          .noneMatch(event -> event.getLevel().isGreaterOrEqual(Level.WARN)));
      assertThat(call(channel, "ServerCheckRequest", "{}").type()).isEqualTo("ServerCheckResponse");
    } finally {
      root.detachAppender(logged);
    }
  }
}
