package io.reactiveregistry.interop.netflix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.netflix.appinfo.ApplicationInfoManager;
import com.netflix.appinfo.InstanceInfo;
import com.netflix.appinfo.MyDataCenterInstanceConfig;
import com.netflix.appinfo.providers.EurekaConfigBasedInstanceInfoProvider;
import com.netflix.discovery.DefaultEurekaClientConfig;
import com.netflix.discovery.DiscoveryClient;
import com.netflix.discovery.Jersey3DiscoveryClientOptionalArgs;
import com.netflix.discovery.shared.Application;
import com.netflix.discovery.shared.transport.jersey3.Jersey3TransportClientFactories;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Netflix's own Eureka client, bare (no Spring), on its Jersey 3 transport and Netflix's
 * {@code /eureka/v2/} path: it registers, renews, fetches what an RSocket client registered, and
 * cancels at shutdown.
 */
class BareEurekaClientTest {
  static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void netflixsOwnClientRegistersFetchesAndCancels() throws Exception {
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(WAIT);
    RegistryClient rsocket = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort())
        .clientName("inventory").build();
    DiscoveryClient eureka = null;
    try {
      rsocket.register(ServiceName.of("inventory"), InstanceBody.of("127.0.0.1", 9100, "DEFAULT", 1.0, Map.of()))
          .block(WAIT);
      MyDataCenterInstanceConfig instance = new MyDataCenterInstanceConfig() {
        @Override
        public String getAppname() {
          return "catalog";
        }

        @Override
        public String getHostName(boolean refresh) {
          return "127.0.0.1";
        }

        @Override
        public String getIpAddress() {
          return "127.0.0.1";
        }

        @Override
        public int getNonSecurePort() {
          return 8765;
        }

        @Override
        public String getVirtualHostName() {
          return "catalog";
        }

        @Override
        public int getLeaseRenewalIntervalInSeconds() {
          return 1;
        }

        @Override
        public int getLeaseExpirationDurationInSeconds() {
          return 3;
        }

        @Override
        public Map<String, String> getMetadataMap() {
          return Map.of("lang", "java");
        }
      };
      InstanceInfo info = new EurekaConfigBasedInstanceInfoProvider(instance).get();
      ApplicationInfoManager manager = new ApplicationInfoManager(instance, info);
      DefaultEurekaClientConfig client = new DefaultEurekaClientConfig() {
        @Override
        public List<String> getEurekaServerServiceUrls(String zone) {
          return List.of("http://127.0.0.1:" + server.httpPort() + "/eureka/v2/");
        }

        @Override
        public int getRegistryFetchIntervalSeconds() {
          return 1;
        }

        @Override
        public int getInstanceInfoReplicationIntervalSeconds() {
          return 1;
        }

        @Override
        public int getInitialInstanceInfoReplicationIntervalSeconds() {
          return 0;
        }
      };
      eureka = new DiscoveryClient(manager, client, new Jersey3TransportClientFactories(),
          new Jersey3DiscoveryClientOptionalArgs());
      manager.setInstanceStatus(InstanceInfo.InstanceStatus.UP);

      await().atMost(WAIT).until(() -> rsocket.query(ServiceName.of("catalog")).block(WAIT).instances().stream()
          .anyMatch(i -> i.port() == 8765 && "java".equals(i.metadata().get("lang"))));
      DiscoveryClient fetching = eureka;
      await().atMost(WAIT).until(() -> {
        Application inventory = fetching.getApplication("INVENTORY");
        return inventory != null && inventory.getInstances().stream().anyMatch(i -> i.getPort() == 9100);
      });
      // Its own registration reaches it at a later fetch (a delta) than the one that brought INVENTORY.
      await().atMost(WAIT).until(() -> fetching.getApplication("CATALOG") != null);
      assertThat(fetching.getApplication("CATALOG").getInstances()).extracting(InstanceInfo::getPort)
          .containsExactly(8765);

      eureka.shutdown(); // cancels
      eureka = null;
      await().atMost(WAIT).until(() -> rsocket.query(ServiceName.of("catalog")).block(WAIT).instances().isEmpty());
    } finally {
      if (eureka != null) {
        eureka.shutdown();
      }
      rsocket.closeAndWait();
      server.disposeNow(WAIT);
    }
  }
}
