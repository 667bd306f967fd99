package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.storage.StorageConfig;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameLengthCodec;
import io.rsocket.frame.FrameType;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * A graceful stop, as the README describes it: readiness turns 503 at once, new connections are
 * refused, answers already being worked on (durable ones waiting for the disk) are delivered,
 * subscription streams complete, and each connection is closed with {@code CONNECTION_CLOSE} and
 * the reason.
 */
class GracefulShutdownTest {
  @TempDir
  Path dir;

  @Test
  void aStopDeliversWhatIsInFlightRefusesNewcomersAndSaysWhyItCloses() throws Exception {
    ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withStorage(StorageConfig.onDisk(dir)));
    int port = fixture.port();
    URI ready = URI.create("http://127.0.0.1:" + fixture.server().httpPort() + "/ready");
    WireClient app = fixture.connect("app");
    List<String> stream = new CopyOnWriteArrayList<>();
    app.stream("service.subscribe", "{\"service\":\"db\"}")
        .subscribe(e -> stream.add("event"), e -> stream.add("error"), () -> stream.add("complete"));
    await().atMost(Duration.ofSeconds(5)).until(() -> stream.contains("event"));
    HttpClient http = HttpClient.newHttpClient(); // warmed up, and its connection kept, before the stop
    assertThat(http.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.discarding()).statusCode())
        .isEqualTo(200);
    // A bare peer reads what the stop sends it, frame by frame, until the server closes its socket.
    Socket peer = new Socket("127.0.0.1", port);
    peer.getOutputStream().write(RawFrames.setup(30_000, 90_000, "{}"));
    await().atMost(Duration.ofSeconds(5)).until(() -> fixture.server().openConnections() == 2);
    CompletableFuture<byte[]> peerReceived = CompletableFuture.supplyAsync(() -> {
      try {
        peer.setSoTimeout(10_000);
        return peer.getInputStream().readAllBytes();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });

    // Durable registrations: each answer waits for its fsync.
    CompletableFuture<List<String>> answers = Flux.range(1, 50)
        .flatMap(i -> app.request("instance.register", "{\"service\":\"db\",\"ephemeral\":false,"
            + "\"instance\":{\"ip\":\"127.0.3." + i + "\",\"port\":5432}}"))
        .collectList().toFuture();
    // Once the server has taken all 50 (applied; answers wait for their commit), stop it.
    await().atMost(Duration.ofSeconds(10)).until(() -> fixture.server().runtime().read(r ->
        r.view(io.reactiveregistry.server.core.ServiceKey.of(null, null, "db"),
            io.reactiveregistry.server.core.ViewFilter.ALL).instances().size()) == 50);
    fixture.server().dispose(); // a graceful stop, in the background

    HttpResponse<String> readiness = http.send(HttpRequest.newBuilder(ready)
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(readiness.statusCode()).isEqualTo(503);
    // A newcomer is closed as soon as it is accepted: it never gets an answer.
    assertThatThrownBy(() -> WireClient.connect(port, "late").call("server.info", "{}"))
        .as("a new connection is refused");

    assertThat(answers.get(10, TimeUnit.SECONDS)).hasSize(50).allSatisfy(a -> assertThat(a).contains("instanceId"));
    await().atMost(Duration.ofSeconds(10)).until(app::isDisposed);
    assertThat(stream).doesNotContain("error").endsWith("complete");
    ByteBuf received = Unpooled.wrappedBuffer(peerReceived.get(10, TimeUnit.SECONDS));
    List<String> errors = new java.util.ArrayList<>();
    while (received.readableBytes() >= 3) {
      ByteBuf frame = FrameLengthCodec.frame(received);
      received.skipBytes(3 + frame.readableBytes());
      if (FrameHeaderCodec.frameType(frame) == FrameType.ERROR) {
        errors.add(ErrorFrameCodec.errorCode(frame) + " " + ErrorFrameCodec.dataUtf8(frame));
      }
    }
    assertThat(errors).containsExactly(ErrorFrameCodec.CONNECTION_CLOSE + " the server is shutting down");
    peer.close();
    fixture.server().disposeNow(Duration.ofSeconds(10));
  }
}
