package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.e2e.TestCertificates;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server with TLS speaks it on the Nacos gRPC port too: Nacos's client with its TLS turned on
 * registers and reads; one without TLS gets no connection and registers nothing.
 */
class NacosTlsTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void theGrpcPortSpeaksTlsWhenTheServerDoes(@TempDir Path dir) throws Exception {
    TestCertificates ca = TestCertificates.authority(dir, "test-ca");
    Path[] certificate = ca.issue("registry", true);
    int nacosPort = NacosPorts.freePair();
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()
        .withSecurity(SecurityConfig.DEFAULTS.withTls(new TlsFiles(certificate[0], certificate[1], null)))
        .withNacos(NacosDoor.Settings.on(nacosPort))).block(WAIT);
    Properties tls = NacosApp.properties("127.0.0.1:" + nacosPort, null, null);
    tls.setProperty("nacos.remote.client.rpc.tls.enable", "true");
    tls.setProperty("nacos.remote.client.rpc.tls.trustAll", "true");
    NamingService secured = NamingFactory.createNamingService(tls);
    NamingService plain = NamingFactory.createNamingService(NacosApp.properties("127.0.0.1:" + nacosPort, null,
        null));
    try {
      secured.registerInstance("ledger", "127.0.0.1", 9500);
      assertThat(secured.selectInstances("ledger", true)).hasSize(1);
      assertThat(plain.getServerStatus()).as("a client without TLS is not connected").isEqualTo("DOWN");
      await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> server.runtime().read(reads -> reads.view(
          ServiceKey.of("public", "DEFAULT_GROUP", "ledger"), ViewFilter.ALL).instances().size()) == 1);
    } finally {
      secured.shutDown();
      plain.shutDown();
      server.disposeNow(WAIT);
    }
  }
}
