package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.nacos.NacosProbe;
import io.rsocket.exceptions.RejectedSetupException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Safe by default, over real sockets from a real non-loopback address: a server process in a
 * network namespace the test makes, reached from the test's side of a veth pair. Without
 * credentials it serves only loopback; {@code --allow-unauthenticated} opens it.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class ProtectedModeTest {
  private static final String REFUSAL = "protected mode";

  private static NetworkNamespace namespace;

  @TempDir
  Path dir;

  @BeforeAll
  static void makeANonLoopbackPeer() throws Exception {
    namespace = NetworkNamespace.create();
    Prerequisites.require(namespace != null,
        "this machine does not let the test make a network namespace (needs root), "
            + "or its interfaces use every documentation range");
  }

  @AfterAll
  static void removeIt() throws Exception {
    if (namespace != null) {
      namespace.close();
    }
  }

  @Test
  void withoutCredentialsAConnectionFromElsewhereIsRefusedOnEveryPortSayingHowToOpenIt() throws Exception {
    // The namespace has ports of its own: the Nacos door takes its fixed ones there.
    try (ServerProcess server = ServerProcess.startIn(namespace, dir.resolve("data"), dir.resolve("server.log"),
        "--nacos-port", "8848")) {
      String host = namespace.namespaceAddress();

      WireClient tcp = WireClient.connectTo(host, server.port(), "outsider");
      assertThatThrownBy(() -> tcp.call("service.query", "{\"service\":\"orders\"}"))
          .isInstanceOf(RejectedSetupException.class)
          .hasMessageContaining("connection from " + namespace.hostAddress() + " refused")
          .hasMessageContaining(REFUSAL).hasMessageContaining("--allow-unauthenticated");
      WireClient webSocket = WireClient.connectWebSocketTo(host, server.webSocketPort(), "outsider");
      assertThatThrownBy(() -> webSocket.call("service.query", "{\"service\":\"orders\"}"))
          .isInstanceOf(RejectedSetupException.class).hasMessageContaining(REFUSAL);
      tcp.close();
      webSocket.close();

      HttpResponse<String> api = get(host, server.httpPort(), "/api/v1/services");
      assertThat(api.statusCode()).isEqualTo(403);
      ErrorBody error = JsonCodec.json().decode(api.body(), ErrorBody.class);
      assertThat(error.code()).isEqualTo("FORBIDDEN");
      assertThat(error.message()).contains(REFUSAL, "--allow-unauthenticated");
      assertThat(get(host, server.httpPort(), "/metrics").statusCode()).isEqualTo(403);
      // The Nacos door's two ports refuse it too, each as Nacos's clients read a refusal.
      HttpResponse<String> nacosHttp = get(host, 8848, "/nacos/v1/ns/instance/list?serviceName=orders");
      assertThat(nacosHttp.statusCode()).isEqualTo(403);
      assertThat(nacosHttp.body()).startsWith("caused: ").contains(REFUSAL, "--allow-unauthenticated");
      NacosProbe.Answer nacosGrpc = NacosProbe.request(host, 9848, "ServerCheckRequest", "{}");
      assertThat(nacosGrpc.type()).isEqualTo("ErrorResponse");
      assertThat(nacosGrpc.body().get("errorCode").asInt()).isEqualTo(403);
      assertThat(nacosGrpc.body().get("message").asText()).contains(REFUSAL);
      // Probes tell an orchestrator only whether the server runs.
      assertThat(get(host, server.httpPort(), "/health").statusCode()).isEqualTo(200);

      // Loopback, inside the namespace, is served; and the refusals were counted.
      String metrics = namespace.run(List.of("curl", "-sS", "http://127.0.0.1:" + server.httpPort() + "/metrics"));
      assertThat(metrics)
          .contains("registry_connections_refused_total{limit=\"protected-mode\",port=\"rsocket\"} 2.0")
          .contains("registry_connections_refused_total{limit=\"protected-mode\",port=\"http\"} 2.0");
      assertThat(server.log()).contains("protected mode: only loopback connections are served");
    }
  }

  @Test
  void allowUnauthenticatedServesEveryAddressAndSaysSoAtStart() throws Exception {
    try (ServerProcess server = ServerProcess.startIn(namespace, dir.resolve("data"), dir.resolve("server.log"),
        "--allow-unauthenticated")) {
      String host = namespace.namespaceAddress();
      try (WireClient client = WireClient.connectTo(host, server.port(), "insider")) {
        client.call("instance.register",
            "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}");
        assertThat(client.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances())
            .hasSize(1);
      }
      assertThat(get(host, server.httpPort(), "/api/v1/services").statusCode()).isEqualTo(200);
      assertThat(server.log()).contains("WARN").contains("--allow-unauthenticated: connections from any address");
    }
  }

  private static HttpResponse<String> get(String host, int port, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
