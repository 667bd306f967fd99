package io.reactiveregistry.server.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.ManagedChannel;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.e2e.ServerFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Nacos connections told to move (what rebalancing does in a cluster; here the door is asked
 * directly), on a real gRPC port with the server's time moved by the test: the client is sent
 * {@code ConnectResetRequest} naming the member; when its client closes the connection, what the
 * connection owned stays until another connection has taken it or 10 s have passed; and a
 * connection registering what a moved one owned is that client come back: it keeps the instance
 * and is never told again.
 */
class NacosMovesTest {
  static final Duration WAIT = Duration.ofSeconds(10);
  static final String ELSEWHERE = "127.0.0.9";
  static final int ELSEWHERE_PORT = 8848;
  final ManualClock clock = new ManualClock(1_000_000);
  final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withNacos(new NacosDoor.Settings(0, 0)), clock);
  final RegistryServer server = fixture.server();
  final NacosDoor door = Objects.requireNonNull(server.nacos());
  final ManagedChannel moved = RawNacos.channel(server.nacosGrpcPort());
  final ManagedChannel back = RawNacos.channel(server.nacosGrpcPort());

  @AfterEach
  void stop() throws InterruptedException {
    moved.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    back.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    fixture.close();
  }

  List<InstanceView> orders() {
    return server.runtime().read(reads -> reads.view(ServiceKey.of("public", "DEFAULT_GROUP", "orders"),
        ViewFilter.ALL)).instances();
  }

  /** Tells the one settled connection to move, and reads what its client was sent. */
  JsonNode tellToMove(RawNacos.Stream stream) throws Exception {
    assertThat(door.moveClients(1, ELSEWHERE, ELSEWHERE_PORT))
        .as("a connection open for less than a few seconds is left alone").isZero();
    clock.advance(NacosGrpcServer.SETTLE.plusSeconds(1));
    assertThat(door.movableConnections()).isEqualTo(1);
    assertThat(door.moveClients(1, ELSEWHERE, ELSEWHERE_PORT)).isEqualTo(1);
    JsonNode reset = RawNacos.json(stream.next("ConnectResetRequest"));
    assertThat(door.movableConnections()).as("told: not counted").isZero();
    assertThat(door.moveClients(1, ELSEWHERE, ELSEWHERE_PORT)).as("told once").isZero();
    return reset;
  }

  /** Closes the client's side, and waits for the server to have seen the close. */
  void closeAndAwait(ManagedChannel channel) throws InterruptedException {
    int open = door.openConnections();
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> door.openConnections() == open - 1);
  }

  @Test
  void whatAConnectionToldToMoveOwnedOutlivesItsCloseForTenSecondsWhenNobodyTakesItOver() throws Exception {
    RawNacos.Stream stream = new RawNacos.Stream(moved, false);
    stream.next("SetupAckRequest");
    RawNacos.register(moved, 9001);

    JsonNode reset = tellToMove(stream);
    assertThat(reset.get("serverIp").asText()).isEqualTo("127.0.0.9");
    assertThat(reset.get("serverPort").asText()).isEqualTo("8848");
    assertThat(reset.get("module").asText()).isEqualTo("internal");
    assertThat(RawNacos.metric(server.httpPort(), "registry_nacos_moves_total{outcome=\"told\"}")).isEqualTo(1);

    closeAndAwait(moved); // the client went, and registered nowhere
    clock.advance(Duration.ofMillis(NacosRequests.MOVE_WITHIN_MILLIS - 1_000));
    RawNacos.awaitAWholeLook(door); // kept until the time is up
    assertThat(orders()).extracting(InstanceView::port).containsExactly(9001);

    clock.advance(Duration.ofMillis(2_000));
    await().atMost(WAIT).until(() -> orders().isEmpty());
  }

  @Test
  void aClientThatComesBackKeepsItsInstanceAndIsNotToldAgain() throws Exception {
    RawNacos.Stream first = new RawNacos.Stream(moved, false);
    first.next("SetupAckRequest");
    RawNacos.register(moved, 9001);
    tellToMove(first);

    // As a Nacos client whose server list lacks the member named: it connects here again, closes
    // the old connection, and redoes its registration on the new one.
    RawNacos.Stream again = new RawNacos.Stream(back, false);
    again.next("SetupAckRequest");
    closeAndAwait(moved);
    assertThat(orders()).as("kept while its client comes back").hasSize(1);
    RawNacos.register(back, 9001);
    // Taken over here, not by another member: its client came back (seen at the next look).
    await().atMost(WAIT).until(() -> RawNacos.metric(server.httpPort(),
        "registry_nacos_moves_total{outcome=\"came_back\"}") == 1);

    clock.advance(NacosGrpcServer.SETTLE.plusSeconds(1));
    assertThat(door.movableConnections()).as("came back: not counted").isZero();
    assertThat(door.moveClients(1, ELSEWHERE, ELSEWHERE_PORT)).as("came back: not told again").isZero();
    RawNacos.call(back, "HealthCheckRequest", "{}"); // its client's health check, which keeps its instance alive
    clock.advance(Duration.ofMillis(NacosRequests.MOVE_WITHIN_MILLIS + 1_000));
    RawNacos.awaitAWholeLook(door); // past the moved connection's time: what the new one owns is its own
    assertThat(orders()).extracting(InstanceView::port).containsExactly(9001);
    assertThat(orders().get(0).healthy()).isTrue();
  }

  @Test
  void aStoppingDoorSendsEachClientToTheLeastLoadedMemberCountingThoseSentAlready() throws Exception {
    List<ManagedChannel> channels = new ArrayList<>(List.of(moved, back, RawNacos.channel(server.nacosGrpcPort()),
        RawNacos.channel(server.nacosGrpcPort())));
    List<RawNacos.Stream> streams = new ArrayList<>();
    for (ManagedChannel channel : channels) {
      RawNacos.Stream stream = new RawNacos.Stream(channel, false);
      stream.next("SetupAckRequest");
      streams.add(stream);
    }
    try {
      // One member holds no Nacos client, the other two: of four clients, the first three go to the
      // first (0, 1, 2), the fourth to whichever then holds fewer (the first of equals).
      door.stop(Duration.ofSeconds(1), List.of(new NacosDoor.Destination("127.0.0.8", 8848, 0),
          new NacosDoor.Destination("127.0.0.9", 8948, 2)));
      Map<String, Long> sentTo = new TreeMap<>();
      for (RawNacos.Stream stream : streams) {
        JsonNode reset = RawNacos.json(stream.next("ConnectResetRequest"));
        sentTo.merge(reset.get("serverIp").asText() + ":" + reset.get("serverPort").asText(), 1L, Long::sum);
      }
      assertThat(sentTo).isEqualTo(Map.of("127.0.0.8:8848", 3L, "127.0.0.9:8948", 1L));
    } finally {
      for (ManagedChannel channel : channels.subList(2, channels.size())) {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
