package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.client.ServiceView;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.nacos.NacosDoor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** Nacos's own naming client (nacos-client 2.x, gRPC) against the Nacos door of a real server. */
class NacosNamingClientTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  RegistryServer server;
  int nacosPort;

  @BeforeEach
  void start() {
    nacosPort = NacosPorts.freePair();
    server = RegistryServer.start(ServerConfig.ephemeralLoopback().withNacos(NacosDoor.Settings.on(nacosPort)))
        .block(WAIT);
  }

  @AfterEach
  void stop() {
    server.disposeNow(WAIT);
  }

  NamingService naming() throws Exception {
    Properties properties = new Properties();
    properties.setProperty(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + nacosPort);
    return NamingFactory.createNamingService(properties);
  }

  @Test
  void registersSubscribesAndIsPushedChangesFromEveryKindOfClient() throws Exception {
    NamingService publisher = naming();
    NamingService subscriber = naming();
    RegistryClient rsocket = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort())
        .clientName("rsocket-witness").build();
    List<List<Instance>> pushed = new CopyOnWriteArrayList<>();
    AtomicReference<ServiceView> watched = new AtomicReference<>();
    Disposable watch = rsocket.watch(ServiceName.of("orders")).subscribe(watched::set);
    try {
      subscriber.subscribe("orders", event -> pushed.add(((NamingEvent) event).getInstances()));

      Instance instance = new Instance();
      instance.setIp("127.0.0.1");
      instance.setPort(9001);
      instance.setWeight(2.0);
      instance.setMetadata(Map.of("zone", "a"));
      publisher.registerInstance("orders", instance);

      await().atMost(WAIT).until(() -> !pushed.isEmpty() && ports(pushed.get(pushed.size() - 1)).contains(9001));
      Instance seen = pushed.get(pushed.size() - 1).stream().filter(i -> i.getPort() == 9001).findFirst().get();
      assertThat(seen.getIp()).isEqualTo("127.0.0.1");
      assertThat(seen.getWeight()).isEqualTo(2.0);
      assertThat(seen.getMetadata()).containsEntry("zone", "a");
      assertThat(seen.isHealthy()).isTrue();
      assertThat(seen.getClusterName()).isEqualTo("DEFAULT");
      // The Java client's watch sees the Nacos client's registration.
      await().atMost(WAIT).until(() -> watched.get() != null && watched.get().instances().stream()
          .anyMatch(seenThere -> seenThere.port() == 9001));

      // And over HTTP, where the dashboard and scripts read it.
      String dashboards = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + server.httpPort() + "/api/v1/services/public/DEFAULT_GROUP/orders")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(dashboards).contains("\"port\":9001").contains("\"zone\":\"a\"");

      // An RSocket client's registration reaches the Nacos subscriber.
      rsocket.register(ServiceName.of("orders"), InstanceBody.of("127.0.0.1", 9002, "DEFAULT", 1.0, Map.of())).block(WAIT);
      await().atMost(WAIT).until(() -> ports(pushed.get(pushed.size() - 1)).containsAll(List.of(9001, 9002)));
      assertThat(ports(publisher.selectInstances("orders", true))).containsExactlyInAnyOrder(9001, 9002);

      assertThat(server.meters().get("registry.nacos.connections").gauge().value()).isEqualTo(2);
      assertThat(server.meters().get("registry.nacos.pushes").counter().count()).isGreaterThanOrEqualTo(2);

      publisher.deregisterInstance("orders", "127.0.0.1", 9001);
      await().atMost(WAIT).until(() -> ports(pushed.get(pushed.size() - 1)).equals(List.of(9002)));
    } finally {
      watch.dispose();
      rsocket.closeAndWait();
      publisher.shutDown();
      subscriber.shutDown();
    }
  }

  static List<Integer> ports(List<Instance> instances) {
    return instances.stream().map(Instance::getPort).sorted().toList();
  }
}
