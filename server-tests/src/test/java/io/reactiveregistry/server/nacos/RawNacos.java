package io.reactiveregistry.server.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Nacos client reduced to its wire, for tests that need to do what Nacos's own client does not
 * (stay silent, ignore a reset): raw gRPC calls of the door's two methods, with Nacos's payloads.
 */
final class RawNacos {
  private RawNacos() {}

  static ManagedChannel channel(int grpcPort) {
    return NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
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


  /**
   * Waits until the door has looked at its connections once since now, start to end (two looks
   * finish: the first may have begun before): what a look would do with the time as it is, it has
   * done. For "nothing happens yet" checks on a manual clock, instead of sleeping.
   */
  static void awaitAWholeLook(NacosDoor door) {
    long now = door.looks();
    await().atMost(Duration.ofSeconds(10)).until(() -> door.looks() >= now + 2);
  }

  /** A sample of the server's {@code /metrics} (on {@code httpPort}), as Prometheus reads it. */
  static double metric(int httpPort, String series) throws Exception {
    String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + httpPort + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    Matcher sample = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    assertThat(sample.find()).as(series + " in " + scrape).isTrue();
    return Double.parseDouble(sample.group(1));
  }
}
