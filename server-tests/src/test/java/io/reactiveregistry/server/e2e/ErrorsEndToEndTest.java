package io.reactiveregistry.server.e2e;

import static io.reactiveregistry.server.e2e.Registrations.registration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.transport.ServerLimits;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.TaggingMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.netty.tcp.TcpClient;
import reactor.test.StepVerifier;

/**
 * Every error the routes can return, over a real connection: the code, a message naming the field
 * and the rule, the connection still usable and nothing changed. {@code INTERNAL} needs a failed
 * disk: {@code storage.StorageFailureEndToEndTest}; {@code UNAUTHENTICATED} and {@code FORBIDDEN}
 * need a server with tokens: {@link PermissionMatrixTest}, every route through every door;
 * {@code UNAVAILABLE} needs a cluster without a majority: {@code ClusterEndToEndTest} (system-tests).
 */
class ErrorsEndToEndTest {
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withLimits(new ServerLimits(64 * 1024, 3, 32 * 1024 * 1024))
      .withMaxInstancesPerConnection(5));

  @AfterEach
  void stop() {
    fixture.close();
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(delimiter = '|', value = {
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":0}} | INVALID_PARAM | instance.port must be between 1 and 65535",
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":\"80\"}} | INVALID_PARAM | field 'instance.port' has the wrong type",
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":80.5}} | INVALID_PARAM | field 'instance.port'",
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"not an ip\",\"port\":80}} | INVALID_PARAM | instance.ip",
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":80,\"weight\":10001}} | INVALID_PARAM | instance.weight must be between 0 and 10000",
      "instance.register | {\"service\":\"orders\"} | INVALID_PARAM | instance is required",
      "instance.register | {\"instance\":{\"ip\":\"127.0.0.1\",\"port\":80}} | INVALID_PARAM | service is required",
      "instance.register | {\"service\":\"or ders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":80}} | INVALID_PARAM | service may contain only",
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":80,\"cluster\":\"\"}} | INVALID_PARAM | instance.cluster must be 1-256",
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":80,\"metadata\":{\"preserved.heart.beat.timeout\":\"1.5\"}}} | INVALID_PARAM | preserved.heart.beat.timeout",
      "instance.register | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":80,\"metadata\":{\"zone\":\"\\ud800\"}}} | INVALID_PARAM | instance.metadata value of 'zone' is not valid Unicode",
      "instance.register | {\"service\": | INVALID_PARAM | malformed JSON at line 1",
      "instance.register | [1,2] | INVALID_PARAM | the body must be a JSON object",
      "instance.register | null | INVALID_PARAM | must be a JSON object",
      "service.query | {\"service\":\"orders\",\"clusters\":[\"a b\"]} | INVALID_PARAM | clusters[0]",
      "instance.deregister | {\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\"}} | INVALID_PARAM | instance.port is required",
      "no.such.route | {} | UNKNOWN_ROUTE | unknown route 'no.such.route'",
      "service.subscribe | {\"service\":\"orders\"} | INVALID_PARAM | route 'service.subscribe' is request-stream; it was called as request-response",
      "instance.heartbeat | {} | INVALID_PARAM | is fire-and-forget",
  })
  void aRefusedRequestNamesTheFieldAndTheRuleAndChangesNothing(String route, String body, String code, String message) {
    WireClient client = fixture.connect("careless");
    client.call("instance.register", registration("orders", "127.0.0.9", 9000));

    ErrorBody error = client.error(route, body);

    assertThat(error.code()).isEqualTo(code);
    assertThat(error.message()).contains(message);
    ServiceSnapshot after = client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class);
    assertThat(after.revision()).isEqualTo(1);
    assertThat(after.instances()).hasSize(1);
  }

  @Test
  void everyCodeOfTheContractThatAServerWithoutAuthenticationSendsIsSentAsDocumented() {
    WireClient owner = fixture.connect("owner");
    WireClient other = fixture.connect("other");
    owner.call("instance.register", registration("orders", "127.0.0.5", 8080));
    Map<String, ErrorBody> errors = new LinkedHashMap<>();
    errors.put("FORBIDDEN", other.error("instance.deregister", registration("orders", "127.0.0.5", 8080)));
    errors.put("NOT_FOUND", other.error("admin.service.get", "{\"service\":\"nope\"}"));
    errors.put("ALREADY_EXISTS", other.error("admin.service.create", "{\"service\":\"orders\"}"));
    errors.put("SERVICE_NOT_EMPTY", other.error("admin.service.delete", "{\"service\":\"orders\"}"));
    errors.put("SERVICE_TYPE_MISMATCH", other.error("instance.register",
        "{\"service\":\"orders\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.6\",\"port\":1}}"));
    errors.put("INVALID_PARAM", other.error("service.query", "{}"));
    errors.put("UNKNOWN_ROUTE", other.error("no.such.route", "{}"));
    errors.put("LIMIT_EXCEEDED", other.error("service.query", "{\"service\":\"" + "x".repeat(70_000) + "\"}"));

    errors.forEach((code, error) -> assertThat(error.code()).as(code).isEqualTo(code));
    assertThat(errors.get("FORBIDDEN").message()).contains("owned by another connection");
    assertThat(errors.get("NOT_FOUND").message()).contains("nope").contains("does not exist");
    assertThat(errors.get("SERVICE_NOT_EMPTY").message()).contains("1 instance(s)");
    Set<String> all = new TreeSet<>();
    for (ErrorCode code : ErrorCode.values()) {
      all.add(code.name());
    }
    all.removeAll(Set.of("INTERNAL", "UNAUTHENTICATED", "UNAVAILABLE")); // see the class comment
    assertThat(errors.keySet()).containsExactlyInAnyOrderElementsOf(all);
    // None of it changed anything or closed a connection.
    assertThat(owner.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
        .hasSize(1);
    assertThat(other.isDisposed()).isFalse();
  }

  @Test
  void aRequestWithoutExactlyOneRouteIsRefused() {
    WireClient client = fixture.connect("careless");

    ErrorBody none = WireClient.errorOf(catchThrowable(() -> client.rsocket()
        .requestResponse(DefaultPayload.create("{}")).block(Duration.ofSeconds(5))));
    CompositeByteBuf twoRoutes = ByteBufAllocator.DEFAULT.compositeBuffer();
    CompositeMetadataCodec.encodeAndAddMetadata(twoRoutes, ByteBufAllocator.DEFAULT,
        WellKnownMimeType.MESSAGE_RSOCKET_ROUTING,
        TaggingMetadataCodec.createRoutingMetadata(ByteBufAllocator.DEFAULT, List.of("server.info", "service.query"))
            .getContent());
    ErrorBody two = WireClient.errorOf(catchThrowable(() -> client.rsocket()
        .requestResponse(ByteBufPayload.create(Unpooled.copiedBuffer("{}", StandardCharsets.UTF_8), twoRoutes))
        .block(Duration.ofSeconds(5))));

    assertThat(none.code()).isEqualTo("INVALID_PARAM");
    assertThat(none.message()).contains("exactly one route").contains("found 0");
    assertThat(two.message()).contains("found 2");
    assertThat(client.call("server.info", "{}")).contains("\"protocol\":1");
  }

  @Test
  void aServiceTypeMismatchNamesTheServicesType() {
    WireClient client = fixture.connect("app");
    client.call("instance.register", registration("orders", "127.0.0.9", 9000));

    ErrorBody error = client.error("instance.register",
        "{\"service\":\"orders\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.8\",\"port\":9000}}");

    assertThat(error.code()).isEqualTo("SERVICE_TYPE_MISMATCH");
    assertThat(error.message()).contains("public/DEFAULT_GROUP/orders is ephemeral");
  }

  @Test
  void aConnectionPastItsInstanceLimitGetsLimitExceeded() {
    WireClient client = fixture.connect("greedy");
    for (int port = 1; port <= 5; port++) {
      client.call("instance.register", registration("orders", "127.0.0.1", port));
    }

    ErrorBody error = client.error("instance.register", registration("orders", "127.0.0.1", 6));

    assertThat(error.code()).isEqualTo("LIMIT_EXCEEDED");
    assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances()).hasSize(5);
    // Another connection is not affected by this one's limit.
    fixture.connect("other").call("instance.register", registration("orders", "127.0.0.1", 6));
  }

  @Test
  void aConnectionPastItsSubscriptionLimitGetsLimitExceeded() {
    WireClient client = fixture.connect("watcher");
    List<reactor.core.Disposable> open = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      open.add(client.stream("service.subscribe", "{\"service\":\"s" + i + "\"}").subscribe());
    }

    StepVerifier.create(client.stream("service.subscribe", "{\"service\":\"one-too-many\"}"))
        .expectErrorSatisfies(e -> assertThat(WireClient.errorOf(e).code()).isEqualTo("LIMIT_EXCEEDED"))
        .verify(Duration.ofSeconds(5));

    open.get(0).dispose();
    await().atMost(Duration.ofSeconds(2)).untilAsserted(() ->
        StepVerifier.create(client.stream("service.subscribe", "{\"service\":\"now-fits\"}").take(1))
            .expectNextCount(1).verifyComplete());
    open.forEach(reactor.core.Disposable::dispose);
  }

  @Test
  void aBodyOverTheLimitGetsLimitExceededAndTheConnectionStaysOpen() {
    WireClient client = fixture.connect("big");
    String big = registration("orders", "127.0.0.1", 80, "\"metadata\":{\"k\":\"" + "x".repeat(70_000) + "\"}");

    ErrorBody error = client.error("instance.register", big);

    assertThat(error.code()).isEqualTo("LIMIT_EXCEEDED");
    assertThat(error.message()).contains("the most accepted is 65536");
    assertThat(client.isDisposed()).isFalse();
    assertThat(client.call("server.info", "{}")).contains("\"protocol\":1");
  }

  @Test
  void aFrameOverTwiceTheLimitClosesOnlyThatConnection() {
    WireClient flooder = fixture.connect("flooder");
    WireClient bystander = fixture.connect("bystander");
    flooder.call("instance.register", registration("orders", "127.0.0.1", 80));
    bystander.call("instance.register", registration("orders", "127.0.0.2", 80));
    // The limit is 64 KiB: up to 128 KiB gets LIMIT_EXCEEDED; a 200 KiB frame is not buffered at all.
    String huge = registration("orders", "127.0.0.1", 81, "\"metadata\":{\"k\":\"" + "x".repeat(200_000) + "\"}");

    // Told why, as a connection error (not a refusal of the request: the frame was never read).
    assertThatThrownBy(() -> flooder.call("instance.register", huge))
        .isInstanceOf(io.rsocket.exceptions.ConnectionErrorException.class)
        .hasMessageContaining("a frame longer than 131072 bytes");
    await().atMost(Duration.ofSeconds(10)).until(flooder::isDisposed);

    // Closing it released what it owned, and nobody else noticed.
    await().atMost(Duration.ofSeconds(10)).until(() -> bystander.call("service.query",
        "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().size() == 1);
    assertThat(bystander.call("server.info", "{}")).contains("\"protocol\":1");
  }

  @Test
  void anInvalidHeartbeatIsDroppedAndCounted() {
    WireClient client = fixture.connect("app");
    long before = fixture.server().droppedHeartbeats();

    client.fire("instance.heartbeat", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":-1}}");
    client.fire("instance.heartbeat", "{not json");

    await().atMost(Duration.ofSeconds(2)).until(() -> fixture.server().droppedHeartbeats() == before + 2);
    assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances()).isEmpty();
  }

  @Test
  void aSetupWithAnotherDataMimeTypeIsRejectedSayingWhatIsAccepted() {
    assertThatThrownBy(() -> RSocketConnector.create()
        .dataMimeType("application/cbor")
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .connect(TcpClientTransport.create(TcpClient.newConnection().host("127.0.0.1").port(fixture.port())))
        .flatMap(rsocket -> rsocket.requestResponse(WireClient.payload("server.info", "{}")))
        .block(Duration.ofSeconds(5)))
        .isInstanceOf(RejectedSetupException.class)
        .hasMessageContaining("application/json");
  }

  @Test
  void aKeepaliveBelowTheFloorIsRefusedNamingIt() {
    StepVerifier.create(RSocketConnector.create()
            .dataMimeType(Protocol.DATA_MIME_TYPE)
            .metadataMimeType(Protocol.METADATA_MIME_TYPE)
            // 500 ms, not 1: a client sending keepalives every millisecond can fail its own write to
            // the closing connection before it reads the refusal that precedes the close.
            .keepAlive(Duration.ofMillis(500), Duration.ofSeconds(90))
            .connect(TcpClientTransport.create(TcpClient.newConnection().host("127.0.0.1").port(fixture.port())))
            .flatMap(socket -> socket.requestResponse(WireClient.payload("server.info", "{}"))))
        .expectErrorSatisfies(error -> assertThat(error).isInstanceOf(RejectedSetupException.class)
            .hasMessageContaining("keepalive interval 500 ms is below this server's floor of 1000 ms"))
        .verify(Duration.ofSeconds(10));
    // At the floor is fine.
    RSocket atTheFloor = RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .keepAlive(Duration.ofMillis(1_000), Duration.ofSeconds(90))
        .connect(TcpClientTransport.create(TcpClient.newConnection().host("127.0.0.1").port(fixture.port())))
        .block(Duration.ofSeconds(5));
    assertThat(atTheFloor.requestResponse(WireClient.payload("server.info", "{}")).map(p -> p.getDataUtf8())
        .block(Duration.ofSeconds(5))).contains("\"protocol\":1");
    atTheFloor.dispose();
  }

  @Test
  void aClientDeclaringJsonMetadataButSendingCompositeIsServed() {
    RSocket rsocket = RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType("application/json")
        .connect(TcpClientTransport.create(TcpClient.newConnection().host("127.0.0.1").port(fixture.port())))
        .block(Duration.ofSeconds(5));
    try {
      String answer = rsocket.requestResponse(WireClient.payload("server.info", "{}"))
          .map(p -> p.getDataUtf8()).block(Duration.ofSeconds(5));
      assertThat(answer).contains("\"protocol\":1");
    } finally {
      rsocket.dispose();
    }
  }

  private static Throwable catchThrowable(Runnable call) {
    try {
      call.run();
    } catch (Throwable e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }
}
