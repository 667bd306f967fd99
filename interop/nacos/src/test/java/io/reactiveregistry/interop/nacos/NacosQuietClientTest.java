package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.client.ServiceView;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.nacos.NacosDoor;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Nacos's own client answers the door's question whether it is alive ({@code ClientDetectionRequest},
 * sent to a connection quiet for 10 s by the server's clock, which the test moves): its connection
 * is kept and its instance never leaves a view, while the time to answer passes.
 */
class NacosQuietClientTest {
  static final Duration WAIT = Duration.ofSeconds(30);
  final ManualClock clock = new ManualClock(1_000_000);
  final int nacosPort = NacosPorts.freePair();
  final RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()
      .withNacos(NacosDoor.Settings.on(nacosPort)), clock).block(WAIT);

  @AfterEach
  void stop() {
    server.disposeNow(WAIT);
  }

  double quietChecks(String outcome) {
    return server.meters().get("registry.nacos.quiet.checks").tag("outcome", outcome).counter().count();
  }

  @Test
  void aLiveNacosClientAnswersAndKeepsItsConnectionAndInstances() throws Exception {
    Properties properties = new Properties();
    properties.setProperty(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + nacosPort);
    NamingService naming = NamingFactory.createNamingService(properties);
    RegistryClient rsocket = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort())
        .clientName("witness").build();
    List<ServiceView> views = new CopyOnWriteArrayList<>();
    Disposable watch = rsocket.watch(ServiceName.of("orders")).subscribe(views::add);
    try {
      naming.registerInstance("orders", "127.0.0.1", 9001);
      await().atMost(WAIT).until(() -> !views.isEmpty() && views.get(views.size() - 1).instances().size() == 1);
      int seenBefore = views.size();

      // The client calls every few seconds of real time (its health check), each call making its
      // connection active at the server's time then: move the time past the quiet limit until a
      // check finds the connection quiet before a call does.
      for (int tries = 0; quietChecks("asked") == 0 && tries < 10; tries++) {
        clock.advance(Duration.ofSeconds(11));
        Thread.sleep(1_500);
      }
      assertThat(quietChecks("asked")).as("the quiet connection was asked").isGreaterThanOrEqualTo(1);
      // Its client's answer taken (on a loaded machine it can take a while to arrive), then the
      // time moved past the time to answer.
      await().atMost(WAIT).until(() -> quietChecks("answered") >= 1);
      clock.advance(Duration.ofSeconds(4));
      Thread.sleep(2_500); // two checks
      assertThat(quietChecks("closed")).as("the client answered").isZero();
      assertThat(server.meters().get("registry.nacos.connections").gauge().value()).isEqualTo(1);
      assertThat(views.subList(seenBefore - 1, views.size())).as("its instance never left the view")
          .allSatisfy(view -> assertThat(view.instances()).extracting(i -> i.port()).containsExactly(9001));
    } finally {
      watch.dispose();
      rsocket.closeAndWait();
      naming.shutDown();
    }
  }
}
