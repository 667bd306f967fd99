package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.SecurityConfig;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.metadata.AuthMetadataCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.codec.json.Jackson2JsonDecoder;
import org.springframework.http.codec.json.Jackson2JsonEncoder;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.messaging.rsocket.RSocketStrategies;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;
import reactor.test.StepVerifier;

/**
 * A third-party client drives the contract: Spring's {@code RSocketRequester}, configured only
 * with what PROTOCOL.md says (JSON data, composite metadata, a route).
 */
class SpringRequesterTest {
  private static final ParameterizedTypeReference<Map<String, Object>> JSON_OBJECT = new ParameterizedTypeReference<>() {};

  private final ServerFixture fixture = new ServerFixture();
  private final RSocketRequester requester = RSocketRequester.builder()
      .dataMimeType(MimeTypeUtils.APPLICATION_JSON)
      .setupData(Map.of("client", "spring-app", "version", "7.0"))
      .rsocketStrategies(RSocketStrategies.builder()
          .encoder(new Jackson2JsonEncoder())
          .decoder(new Jackson2JsonDecoder())
          .build())
      .tcp("127.0.0.1", fixture.port());

  @AfterEach
  void stop() {
    requester.dispose();
    fixture.close();
  }

  @Test
  void springsRequesterRegistersQueriesAndSubscribes() {
    Map<String, Object> registration = Map.of("service", "orders",
        "instance", Map.of("ip", "127.0.0.5", "port", 8080, "metadata", Map.of("zone", "a")));

    Map<String, Object> registered = requester.route("instance.register").data(registration)
        .retrieveMono(JSON_OBJECT).block(Duration.ofSeconds(5));
    assertThat(registered).containsEntry("instanceId", "127.0.0.5#8080#DEFAULT").containsEntry("heartbeatIntervalMs", 5000);

    requester.route("instance.heartbeat").data(Map.of()).send().block(Duration.ofSeconds(5));

    StepVerifier.create(requester.route("service.subscribe").data(Map.of("service", "orders")).retrieveFlux(JSON_OBJECT))
        .assertNext(snapshot -> {
          assertThat(snapshot).containsEntry("type", "SNAPSHOT");
          assertThat(snapshot.get("instances")).asList().hasSize(1);
        })
        .then(() -> requester.route("instance.deregister")
            .data(Map.of("service", "orders", "instance", Map.of("ip", "127.0.0.5", "port", 8080)))
            .retrieveMono(JSON_OBJECT).block(Duration.ofSeconds(5)))
        .assertNext(event -> assertThat(event).containsEntry("type", "REMOVE")
            .containsEntry("instanceId", "127.0.0.5#8080#DEFAULT"))
        .thenCancel()
        .verify(Duration.ofSeconds(10));
  }

  @Test
  void springsRequesterWorksOverWebSocketToo() {
    RSocketRequester overWebSocket = RSocketRequester.builder()
        .dataMimeType(MimeTypeUtils.APPLICATION_JSON)
        .rsocketStrategies(RSocketStrategies.builder()
            .encoder(new Jackson2JsonEncoder())
            .decoder(new Jackson2JsonDecoder())
            .build())
        .websocket(java.net.URI.create("ws://127.0.0.1:" + fixture.server().webSocketPort() + "/rsocket"));
    try {
      Map<String, Object> registered = overWebSocket.route("instance.register")
          .data(Map.of("service", "orders", "instance", Map.of("ip", "127.0.0.5", "port", 8080)))
          .retrieveMono(JSON_OBJECT).block(Duration.ofSeconds(5));
      assertThat(registered).containsEntry("instanceId", "127.0.0.5#8080#DEFAULT");
      StepVerifier.create(overWebSocket.route("service.subscribe").data(Map.of("service", "orders"))
              .retrieveFlux(JSON_OBJECT).take(1))
          .assertNext(snapshot -> assertThat(snapshot.get("instances")).asList().hasSize(1))
          .verifyComplete();
    } finally {
      overWebSocket.dispose();
    }
  }

  @Test
  void springsRequesterSeesContractErrorsAsApplicationErrors() {
    StepVerifier.create(requester.route("instance.register")
            .data(Map.of("service", "orders", "instance", Map.of("ip", "127.0.0.5", "port", 0)))
            .retrieveMono(JSON_OBJECT))
        .expectErrorSatisfies(error -> {
          assertThat(error).isInstanceOf(ApplicationErrorException.class);
          assertThat(error.getMessage()).contains("\"code\":\"INVALID_PARAM\"").contains("instance.port");
        })
        .verify(Duration.ofSeconds(5));
  }

  /**
   * Bearer tokens as Spring Security's RSocket support sends them (the authentication extension in
   * composite metadata): in the SETUP for the connection, per request for that request.
   */
  @Test
  void springsRequesterAuthenticatesWithABearerTokenInTheSetupOrPerRequest(@TempDir Path dir) throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, TokenFile.of(TokensEndToEndTest.GRANTS));
    MimeType bearer = MimeType.valueOf(BearerMetadata.MIME_TYPE);
    try (ServerFixture secured = new ServerFixture(ServerConfig.ephemeralLoopback()
        .withSecurity(new SecurityConfig(false, tokens)))) {
      RSocketRequester app = RSocketRequester.builder()
          .dataMimeType(MimeTypeUtils.APPLICATION_JSON)
          .setupMetadata(bearer(TokensEndToEndTest.APP), bearer)
          .rsocketStrategies(RSocketStrategies.builder()
              .encoder(new Jackson2JsonEncoder()).decoder(new Jackson2JsonDecoder()).build())
          .tcp("127.0.0.1", secured.port());
      try {
        Map<String, Object> registered = app.route("instance.register")
            .data(Map.of("namespace", "prod", "service", "orders", "instance", Map.of("ip", "127.0.0.5", "port", 8080)))
            .retrieveMono(JSON_OBJECT).block(Duration.ofSeconds(5));
        assertThat(registered).containsEntry("instanceId", "127.0.0.5#8080#DEFAULT");
        StepVerifier.create(app.route("admin.service.get").data(Map.of("namespace", "prod", "service", "orders"))
                .retrieveMono(JSON_OBJECT))
            .expectErrorSatisfies(error -> assertThat(error.getMessage()).contains("\"code\":\"FORBIDDEN\"")
                .contains("admin permission"))
            .verify(Duration.ofSeconds(5));
        Map<String, Object> detail = app.route("admin.service.get")
            .metadata(bearer(TokensEndToEndTest.OPS), bearer)
            .data(Map.of("namespace", "prod", "service", "orders"))
            .retrieveMono(JSON_OBJECT).block(Duration.ofSeconds(5));
        assertThat(detail).containsEntry("service", "orders");
      } finally {
        app.dispose();
      }
    }
  }

  private static byte[] bearer(String token) {
    ByteBuf encoded = AuthMetadataCodec.encodeBearerMetadata(ByteBufAllocator.DEFAULT, token.toCharArray());
    try {
      return ByteBufUtil.getBytes(encoded);
    } finally {
      encoded.release();
    }
  }
}
