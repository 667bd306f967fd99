package io.reactiveregistry.spring;

import static io.reactiveregistry.spring.TestApps.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.TestCertificates;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.security.StaticTokens;
import io.reactiveregistry.server.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.ConfigurableApplicationContext;

/** The starter's TLS and token properties, against a server that requires both (and client certificates). */
class SecureStarterTest {
  private static final String TOKEN = "spring-app-token-0123456789";

  @TempDir
  Path dir;

  @Test
  void applicationsRegisterAndDiscoverOverMutualTlsWithAToken() throws Exception {
    TestCertificates ca = TestCertificates.authority(dir, "test-ca");
    Path[] serverCertificate = ca.issue("registry", true);
    Path[] clientCertificate = ca.issue("spring-app", false);
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, "{\"tokens\":[{\"name\":\"spring-app\",\"sha256\":\""
        + HexFormat.of().formatHex(StaticTokens.sha256(TOKEN))
        + "\",\"permissions\":{\"public\":[\"read\",\"write\"]}}]}");
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()
        .withSecurity(new SecurityConfig(false, tokens)
            .withTls(new TlsFiles(serverCertificate[0], serverCertificate[1], ca.certificate())))).block(WAIT);
    String[] secure = {
        "reactive-registry.servers=tls://127.0.0.1:" + server.tcpPort(),
        "reactive-registry.token=" + TOKEN,
        "reactive-registry.tls.trusted-certificates=" + ca.certificate(),
        "reactive-registry.tls.certificate=" + clientCertificate[0],
        "reactive-registry.tls.key=" + clientCertificate[1]};
    ConfigurableApplicationContext orders = TestApps.start(TestApps.Whoami.class, "orders", server.tcpPort(), secure);
    ConfigurableApplicationContext caller = TestApps.start(TestApps.Caller.class, "caller", server.tcpPort(), secure);
    ConfigurableApplicationContext tokenless = TestApps.start(TestApps.Whoami.class, "tokenless", server.tcpPort(),
        secure[0], secure[2], secure[3], secure[4]);
    try {
      DiscoveryClient discovery = caller.getBean(DiscoveryClient.class);
      await().atMost(WAIT).until(() -> discovery.getInstances("orders").size() == 1);
      assertThat(discovery.getInstances("orders")).extracting(ServiceInstance::getPort)
          .containsExactly(TestApps.port(orders));
      // Without the token the server refuses the connection: the application runs, unregistered.
      assertThat(discovery.getServices()).contains("orders", "caller").doesNotContain("tokenless");
    } finally {
      tokenless.close();
      caller.close();
      orders.close();
      server.disposeNow(WAIT);
    }
  }
}
