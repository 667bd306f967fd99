package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.nacos.NacosDoor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The server restarted under a Nacos client (an in-memory server: everything it held is gone): the
 * client connects again and redoes its registration and its subscription by itself, and the views
 * come back, with what was registered before it was back; what is registered after is pushed to it.
 */
class NacosServerRestartTest {
  static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void theClientRedoesItsRegistrationsAndSubscriptionsAfterARestart() throws Exception {
    int nacosPort = NacosPorts.freePair();
    ServerConfig config = ServerConfig.ephemeralLoopback().withNacos(NacosDoor.Settings.on(nacosPort));
    RegistryServer server = RegistryServer.start(config).block(WAIT);
    NamingService naming = NamingFactory.createNamingService(NacosApp.properties("127.0.0.1:" + nacosPort, null,
        null));
    AtomicReference<List<Instance>> pushed = new AtomicReference<>(List.of());
    try {
      naming.subscribe("inventory", event -> pushed.set(((NamingEvent) event).getInstances()));
      naming.registerInstance("inventory", "127.0.0.1", 9200);
      await().atMost(WAIT).until(() -> pushed.get().size() == 1);

      server.disposeNow(WAIT);
      server = RegistryServer.start(config.withTcpPort(0)).block(WAIT);
      RegistryServer restarted = server;
      // Registered before the Nacos client is back: its redone subscription's answer holds this
      // instance, but the client ignores a redo's answer and learns the view only from the push
      // the server sends a new subscriber (as Nacos's does).
      RegistryClient rsocket = RegistryClient.builder().servers("tcp://127.0.0.1:" + restarted.tcpPort())
          .clientName("after-restart").build();
      try {
        rsocket.register(ServiceName.of("inventory"), InstanceBody.of("127.0.0.1", 9201, "DEFAULT", 1.0, Map.of()))
            .block(WAIT);
        // The client's own redo: its instance is registered again on the new server.
        try {
          await().atMost(WAIT).until(() -> restarted.runtime().read(reads -> reads.view(
              ServiceKey.of("public", "DEFAULT_GROUP", "inventory"), ViewFilter.ALL).instances().size()) == 2);
        } catch (ConditionTimeoutException e) {
          // Seen once (2026-12-07), not reproduced since: say whether the client came back at all.
          throw new AssertionError("the Nacos client did not register again within " + WAIT + ": the restarted "
              + "server holds " + Objects.requireNonNull(restarted.nacos()).openConnections() + " Nacos "
              + "connection(s); the client says the server is " + naming.getServerStatus() + " (its own log is "
              + "in this test's output file under target/surefire-reports)", e);
        }
        // And its subscription: the view as it is now, then what is registered after.
        await().atMost(WAIT).until(() -> ports(pushed.get()).equals(List.of(9200, 9201)));
        rsocket.register(ServiceName.of("inventory"), InstanceBody.of("127.0.0.1", 9202, "DEFAULT", 1.0, Map.of()))
            .block(WAIT);
        await().atMost(WAIT).until(() -> ports(pushed.get()).equals(List.of(9200, 9201, 9202)));
        assertThat(naming.selectInstances("inventory", true)).hasSize(3);
      } finally {
        rsocket.closeAndWait();
      }
    } finally {
      naming.shutDown();
      server.disposeNow(WAIT);
    }
  }

  private static List<Integer> ports(List<Instance> instances) {
    return instances.stream().map(Instance::getPort).sorted().toList();
  }
}
