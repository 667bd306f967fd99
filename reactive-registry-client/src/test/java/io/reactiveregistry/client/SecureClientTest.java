package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.TestCertificates;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.security.StaticTokens;
import io.reactiveregistry.server.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against a server with TLS (client certificates required) and tokens. */
class SecureClientTest {
  private static final ServiceName ORDERS = new ServiceName("prod", "DEFAULT_GROUP", "orders");
  private static final String TOKEN = "orders-app-secret-4f2a";
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path dir;
  private RegistryServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.disposeNow(Duration.ofSeconds(5));
    }
  }

  @Test
  void aClientWithTheCaItsCertificateAndATokenRegistersAndChoosesOverTls() throws Exception {
    TestCertificates ca = TestCertificates.authority(dir, "test-ca");
    Path[] serverCertificate = ca.issue("registry", true);
    Path[] clientCertificate = ca.issue("orders-app", false);
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, "{\"tokens\":[{\"name\":\"orders-app\",\"sha256\":\""
        + HexFormat.of().formatHex(StaticTokens.sha256(TOKEN)) + "\",\"permissions\":{\"prod\":[\"read\",\"write\"]}}]}");
    server = RegistryServer.start(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false, tokens)
        .withTls(new TlsFiles(serverCertificate[0], serverCertificate[1], ca.certificate())))).block(WAIT);
    String address = "tls://127.0.0.1:" + server.tcpPort();

    RegistryClient app = RegistryClient.builder().servers(address).token(TOKEN)
        .tls(new ClientTls(ca.certificate(), clientCertificate[0], clientCertificate[1])).build();
    try {
      app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
      assertThat(app.choose(ORDERS).block(WAIT).ip()).isEqualTo("127.0.0.5");
    } finally {
      app.closeAndWait();
    }

    RegistryClient untrusting = RegistryClient.builder().servers(address).token(TOKEN)
        .requestTimeout(Duration.ofSeconds(2)).build(); // the JVM's CAs do not know the test's
    try {
      assertThatThrownBy(() -> untrusting.choose(ORDERS).block(WAIT)).isInstanceOf(RegistryUnavailableException.class);
    } finally {
      untrusting.closeAndWait();
    }
  }
}
