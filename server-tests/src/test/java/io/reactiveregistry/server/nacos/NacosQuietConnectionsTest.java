package io.reactiveregistry.server.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.e2e.ServerFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  final ManagedChannel answering = channel();
  final ManagedChannel silent = channel();

  @AfterEach
  void stop() throws InterruptedException {
    answering.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    silent.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    fixture.close();
  }

  ManagedChannel channel() {
    return NettyChannelBuilder.forAddress("127.0.0.1", server.nacosGrpcPort()).usePlaintext().build();
  }

  /** A client's stream, set up: what the server sent on it, how it ended, and (optionally) its answers. */
  static final class Stream {
    final BlockingQueue<Payload> received = new LinkedBlockingQueue<>();
    final AtomicReference<Throwable> ended = new AtomicReference<>();
    StreamObserver<Payload> toServer;

    Stream(ManagedChannel on, boolean answersDetection) {
      toServer = ClientCalls.asyncBidiStreamingCall(on.newCall(NacosGrpcServer.BI_STREAM, CallOptions.DEFAULT),
          new StreamObserver<>() {
            @Override
            public void onNext(Payload value) {
              received.add(value);
              if (answersDetection && value.type().equals("ClientDetectionRequest")) {
                String id = json(value).get("requestId").asText();
                synchronized (Stream.this) {
                  toServer.onNext(payload("ClientDetectionResponse", "{\"requestId\":\"" + id
                      + "\",\"resultCode\":200,\"errorCode\":0}"));
                }
              }
            }

            @Override
            public void onError(Throwable t) {
              ended.set(t);
            }

            @Override
            public void onCompleted() {}
          });
      synchronized (this) {
        toServer.onNext(payload("ConnectionSetupRequest",
            "{\"clientVersion\":\"test\",\"labels\":{\"AppName\":\"shop\"},\"abilityTable\":{}}"));
      }
    }

    Payload next(String type) throws InterruptedException {
      for (Payload each = received.poll(10, TimeUnit.SECONDS); each != null;
          each = received.poll(10, TimeUnit.SECONDS)) {
        if (each.type().equals(type)) {
          return each;
        }
      }
      throw new AssertionError("no " + type + " on the stream within 10 s");
    }
  }

  static Payload payload(String type, String json) {
    return new Payload(type, "127.0.0.1", Map.of(), json.getBytes(StandardCharsets.UTF_8));
  }

  static JsonNode json(Payload payload) {
    try {
      return NacosJson.MAPPER.readTree(payload.body());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static Payload call(ManagedChannel on, String type, String json) {
    return ClientCalls.blockingUnaryCall(on, NacosGrpcServer.REQUEST, CallOptions.DEFAULT, payload(type, json));
  }

  static void register(ManagedChannel on, int port) {
    Payload answer = call(on, "InstanceRequest", "{\"namespace\":\"public\",\"serviceName\":\"orders\",\"groupName\":"
        + "\"DEFAULT_GROUP\",\"type\":\"registerInstance\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port
        + ",\"ephemeral\":true}}");
    assertThat(answer.type()).as(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("InstanceResponse");
  }

  /** A sample of the server's {@code /metrics}, as Prometheus reads it. */
  double metric(String series) throws Exception {
    String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + server.httpPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    Matcher sample = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    assertThat(sample.find()).as(series + " in " + scrape).isTrue();
    return Double.parseDouble(sample.group(1));
  }

  List<InstanceView> orders() {
    return server.runtime().read(reads -> reads.view(ServiceKey.of("public", "DEFAULT_GROUP", "orders"),
        ViewFilter.ALL)).instances();
  }

  @Test
  void aQuietConnectionIsAskedWhetherItIsAliveAndClosedWhenItDoesNotAnswer() throws Exception {
    Stream alive = new Stream(answering, true);
    alive.next("SetupAckRequest");
    Stream gone = new Stream(silent, false);
    gone.next("SetupAckRequest");
    register(answering, 9001);
    register(silent, 9002);
    assertThat(orders()).hasSize(2);

    clock.advance(Duration.ofMillis(NacosRequests.QUIET_MILLIS + 1_000));
    Payload asked = alive.next("ClientDetectionRequest");
    assertThat(json(asked).get("module").asText()).isEqualTo("internal");
    gone.next("ClientDetectionRequest");
    // The answer taken before the time moves on (on a loaded machine it can take a while to arrive).
    await().atMost(WAIT).until(() -> metric(ANSWERED) == 1);
    Thread.sleep(1_500); // a check or more passes: nobody is closed before the time to answer is up
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
    Payload late = call(silent, "HealthCheckRequest", "{}");
    assertThat(json(late).get("errorCode").asInt()).as("unregistered: a Nacos client connects again").isEqualTo(301);

    // The one that answered is asked again when quiet again, and stays.
    clock.advance(Duration.ofMillis(NacosRequests.QUIET_MILLIS + 1_000));
    alive.next("ClientDetectionRequest");
    await().atMost(WAIT).until(() -> metric(ANSWERED) == 2);
    clock.advance(Duration.ofMillis(NacosRequests.ANSWER_WITHIN_MILLIS + 1_000));
    Thread.sleep(1_500);
    assertThat(orders()).extracting(InstanceView::port).containsExactly(9001);
    assertThat(alive.ended.get()).isNull();
    assertThat(metric("registry_nacos_quiet_checks_total{outcome=\"asked\"}")).isEqualTo(3);
    assertThat(metric("registry_nacos_quiet_checks_total{outcome=\"closed\"}")).isEqualTo(1);
  }
}
