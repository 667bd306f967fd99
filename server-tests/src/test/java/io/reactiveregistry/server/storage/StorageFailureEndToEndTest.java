package io.reactiveregistry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.ServerFixture;
import io.reactiveregistry.server.e2e.WireClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose log fails under it, over the wire: the write that was lost is answered
 * {@code INTERNAL} saying it may not survive a restart, later durable writes are refused with
 * {@code INTERNAL} changing nothing, {@code /ready} turns 503, and ephemeral work goes on on the
 * same connection.
 */
class StorageFailureEndToEndTest {
  @TempDir
  Path dir;

  private static String persistent(String ip) {
    return "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"" + ip + "\",\"port\":5432}}";
  }

  private static int status(ServerFixture fixture, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + fixture.server().httpPort() + path)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void afterTheLogFailsDurableWritesAreRefusedWithInternalAndTheServerIsNotReady() throws Exception {
    try (ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
        .withStorage(StorageConfig.onDisk(dir)))) {
      WireClient client = fixture.connect("app");
      client.call("instance.register", persistent("127.0.0.1"));
      assertThat(status(fixture, "/ready")).isEqualTo(200);
      assertThat(status(fixture, "/health")).isEqualTo(200);
      assertThat(client.call("server.info", "{}", ServerInfo.class).storage()).isEqualTo("OK");

      fixture.server().storage().orElseThrow().raftServer().close(); // the log is gone from under the server

      ErrorBody lost = client.error("instance.register", persistent("127.0.0.2"));
      assertThat(lost.code()).isEqualTo("INTERNAL");
      assertThat(lost.message()).contains("may not survive a restart");
      ErrorBody refused = client.error("admin.service.create", "{\"service\":\"payments\",\"ephemeral\":false}");
      assertThat(refused.code()).isEqualTo("INTERNAL");
      assertThat(refused.message()).contains("durable writes are refused until the server restarts");
      assertThat(client.error("admin.service.get", "{\"service\":\"payments\"}").code()).isEqualTo("NOT_FOUND");
      assertThat(status(fixture, "/ready")).isEqualTo(503);
      // Liveness says so too: the server needs a restart, and a supervisor acting on /health will do it.
      assertThat(status(fixture, "/health")).isEqualTo(503);
      assertThat(client.call("server.info", "{}", ServerInfo.class).storage()).startsWith("FAILED: ");

      // Ephemeral work never touches storage: it goes on, on the same connection.
      String orders = "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}";
      client.call("instance.register", orders);
      assertThat(client.call("instance.deregister", orders)).contains("\"removed\":true");
      assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances()).isEmpty();
      assertThat(client.isDisposed()).isFalse();
    }
  }
}
