package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.handler.ssl.SslContext;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on every port, with a CA the test makes (openssl): the whole path over TCP, wss:// and
 * https://; a client that does not trust the server, or shows no certificate or one of another CA
 * to a server that asks for one, is refused; a renewed certificate is served without a restart.
 */
class TlsEndToEndTest {
  private static final String REGISTER = "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}";
  private static final String QUERY = "{\"service\":\"orders\"}";

  @TempDir
  static Path dir;
  static TestCertificates ca;
  static TestCertificates rogue;
  static Path[] server;
  static Path[] client;
  static Path[] rogueClient;
  static Path serverCert;
  static Path serverKey;
  static ServerFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    ca = TestCertificates.authority(dir, "test-ca");
    rogue = TestCertificates.authority(dir, "rogue-ca");
    server = ca.issue("registry", true);
    client = ca.issue("orders-app", false);
    rogueClient = rogue.issue("intruder", false);
    serverCert = dir.resolve("server.pem");
    serverKey = dir.resolve("server.key");
    Files.copy(server[0], serverCert);
    Files.copy(server[1], serverKey);
    fixture = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(SecurityConfig.DEFAULTS
        .withTls(new TlsFiles(serverCert, serverKey, ca.certificate()))));
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void everyRouteWorksOverTlsTcpAndWss() throws Exception {
    try (WireClient tcp = WireClient.connectTls(fixture.port(), "app", TestCertificates.trusting(ca.certificate(), client));
         WireClient wss = WireClient.connectWss(fixture.server().webSocketPort(), "watcher",
             TestCertificates.trusting(ca.certificate(), client))) {
      assertThat(tcp.call("instance.register", REGISTER)).contains("127.0.0.5#8080#DEFAULT");
      assertThat(wss.call("service.query", QUERY, ServiceSnapshot.class).instances()).hasSize(1);
      String first = wss.stream("service.subscribe", QUERY).blockFirst(Duration.ofSeconds(5));
      assertThat(first).startsWith("{\"type\":\"SNAPSHOT\"").contains("127.0.0.5");
    }
  }

  @Test
  void httpsServesTheApiToAClientWithACertificate() throws Exception {
    String https = "https://127.0.0.1:" + fixture.server().httpPort() + "/health";
    Process curl = new ProcessBuilder("curl", "-s", "--cacert", ca.certificate().toString(), "--cert",
        client[0].toString(), "--key", client[1].toString(), https).start();
    assertThat(new String(curl.getInputStream().readAllBytes())).isEqualTo("{\"status\":\"UP\"}");
    Process anonymous = new ProcessBuilder("curl", "-s", "--cacert", ca.certificate().toString(), https).start();
    anonymous.getInputStream().readAllBytes();
    assertThat(anonymous.waitFor()).as("no client certificate: the handshake fails").isNotZero();
  }

  @Test
  void aClientThatDoesNotTrustTheServerOrShowsNoTrustedCertificateIsRefused() throws Exception {
    assertThatThrownBy(() -> WireClient.connectTls(fixture.port(), "distrustful", TestCertificates.trusting(rogue.certificate(), client))
        .call("server.info", "{}")).as("the server's certificate is not signed by a CA it trusts").isNotNull();
    assertThatThrownBy(() -> WireClient.connectTls(fixture.port(), "anonymous", TestCertificates.trusting(ca.certificate(), null))
        .call("server.info", "{}")).as("mutual TLS: no client certificate").isNotNull();
    assertThatThrownBy(() -> WireClient.connectTls(fixture.port(), "intruder", TestCertificates.trusting(ca.certificate(), rogueClient))
        .call("server.info", "{}")).as("mutual TLS: a certificate of another CA").isNotNull();
  }

  @Test
  void aClientCertificateSpeaksForThePrincipalNamedByItsCommonName() throws Exception {
    Path tokens = dir.resolve("certificate-principals.json");
    Files.writeString(tokens, "{\"tokens\":[{\"name\":\"orders-app\",\"clientCertificate\":true,"
        + "\"permissions\":{\"prod\":[\"read\",\"write\"]}}]}");
    Path[] stranger = ca.issue("stranger", false);
    try (ServerFixture secured = new ServerFixture(ServerConfig.ephemeralLoopback().withSecurity(
        new SecurityConfig(false, tokens).withTls(new TlsFiles(server[0], server[1], ca.certificate()))))) {
      WireClient app = WireClient.connectTls(secured.port(), "app", TestCertificates.trusting(ca.certificate(), client));
      assertThat(app.call("instance.register", "{\"namespace\":\"prod\",\"service\":\"orders\","
          + "\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}")).contains("127.0.0.5#8080#DEFAULT");
      var forbidden = app.error("admin.service.get", "{\"namespace\":\"prod\",\"service\":\"orders\"}");
      assertThat(forbidden.code()).isEqualTo("FORBIDDEN");
      assertThat(forbidden.message()).contains("'orders-app' lacks the admin permission");

      try (WireClient unknown = WireClient.connectTls(secured.port(), "stranger", TestCertificates.trusting(ca.certificate(), stranger))) {
        assertThat(unknown.error("service.list", "{\"namespace\":\"prod\"}").code())
            .as("a trusted certificate no entry names: no principal").isEqualTo("UNAUTHENTICATED");
      }

      String https = "https://127.0.0.1:" + secured.server().httpPort() + "/api/v1/services?namespace=prod";
      Process curl = new ProcessBuilder("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert",
          ca.certificate().toString(), "--cert", client[0].toString(), "--key", client[1].toString(), https).start();
      assertThat(new String(curl.getInputStream().readAllBytes())).isEqualTo("200");

      Files.writeString(tokens, "{\"tokens\":[]}"); // the principal revoked: its connections close
      await().atMost(Duration.ofSeconds(10)).until(app::isDisposed);
    }
  }

  @Test
  void aRenewedCertificateIsServedWithoutARestart() throws Exception {
    // The renewal comes from another CA, so that a client trusting only it proves which one is served.
    Path[] renewed = rogue.issue("registry", true);
    Files.copy(renewed[1], serverKey, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(renewed[0], serverCert, StandardCopyOption.REPLACE_EXISTING);
    try {
      SslContext trustingRenewal = TestCertificates.trusting(rogue.certificate(), client);
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
        try (WireClient renewedClient = WireClient.connectTls(fixture.port(), "renewed", trustingRenewal)) {
          return renewedClient.call("server.info", "{}").contains("\"protocol\":1");
        }
      });
    } finally {
      Files.copy(server[1], serverKey, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(server[0], serverCert, StandardCopyOption.REPLACE_EXISTING);
      SslContext original = TestCertificates.trusting(ca.certificate(), client);
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
        try (WireClient back = WireClient.connectTls(fixture.port(), "back", original)) {
          return back.call("server.info", "{}").contains("\"protocol\":1");
        }
      });
    }
  }
}
