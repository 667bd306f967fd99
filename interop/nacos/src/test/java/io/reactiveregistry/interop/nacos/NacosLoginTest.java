package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.security.StaticTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With tokens required, a Nacos application logs in as it does with Nacos (its {@code username}
 * and {@code password} properties, the password being one of the registry's tokens) and its every
 * request carries the token it was given; without a valid one it is refused with Nacos's 403, and
 * the permission is the token's.
 */
class NacosLoginTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aClientLogsInWithATokenAsItsPasswordAndIsHeldToItsPermissions(@TempDir Path dir) throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, "{\"tokens\":[{\"name\":\"orders-team\",\"sha256\":\""
        + HexFormat.of().formatHex(StaticTokens.sha256("orders-team-5b6c7d")) + "\",\"permissions\":{\"public\":"
        + "[\"read\",\"write\"]}}]}");
    int nacosPort = NacosPorts.freePair();
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()
        .withSecurity(new SecurityConfig(false, tokens, null, 1_000_000, Duration.ofMinutes(1)))
        .withNacos(NacosDoor.Settings.on(nacosPort))).block(WAIT);
    String serverAddr = "127.0.0.1:" + nacosPort;
    NamingService member = NamingFactory.createNamingService(NacosApp.properties(serverAddr, "orders",
        "orders-team-5b6c7d"));
    NamingService stranger = NamingFactory.createNamingService(NacosApp.properties(serverAddr, "orders",
        "not-a-token-123"));
    Properties billing = NacosApp.properties(serverAddr, "orders", "orders-team-5b6c7d");
    billing.setProperty(PropertyKeyConst.NAMESPACE, "billing");
    NamingService elsewhere = NamingFactory.createNamingService(billing);
    try {
      member.registerInstance("orders", "127.0.0.1", 9300);
      assertThat(member.selectInstances("orders", true)).hasSize(1);

      assertThatThrownBy(() -> stranger.registerInstance("orders", "127.0.0.1", 9301))
          .isInstanceOfSatisfying(NacosException.class, e -> assertThat(e.getErrCode()).isEqualTo(403));
      assertThatThrownBy(() -> elsewhere.registerInstance("orders", "127.0.0.1", 9302))
          .isInstanceOfSatisfying(NacosException.class, e -> assertThat(e.getErrMsg()).contains("billing"));
      assertThat(member.getAllInstances("orders", false)).as("the others changed nothing").hasSize(1);
    } finally {
      member.shutDown();
      stranger.shutDown();
      elsewhere.shutDown();
      server.disposeNow(WAIT);
    }
  }
}
