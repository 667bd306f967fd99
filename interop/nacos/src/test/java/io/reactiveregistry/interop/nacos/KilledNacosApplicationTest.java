package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.client.ServiceView;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.nacos.NacosDoor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * A Nacos application killed with SIGKILL: its kernel closes its connection, and its instance
 * leaves every view at once, pushed to an RSocket watcher and to a Nacos subscriber alike. (A peer
 * that vanishes without a close is found by the gRPC port's pings: within 15 s.)
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class KilledNacosApplicationTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aKilledApplicationsInstanceLeavesEveryViewAtOnce(@TempDir Path dir) throws Exception {
    int nacosPort = NacosPorts.freePair();
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()
        .withNacos(NacosDoor.Settings.on(nacosPort))).block(WAIT);
    String serverAddr = "127.0.0.1:" + nacosPort;
    RegistryClient rsocket = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort())
        .clientName("witness").build();
    AtomicReference<ServiceView> watched = new AtomicReference<>();
    Disposable watch = rsocket.watch(ServiceName.of("payments")).subscribe(watched::set);
    NamingService subscriber = NamingFactory.createNamingService(NacosApp.properties(serverAddr, null, null));
    AtomicReference<List<Instance>> pushed = new AtomicReference<>(List.of());
    subscriber.subscribe("payments", event -> pushed.set(((NamingEvent) event).getInstances()));
    Path log = dir.resolve("app.log");
    Process app = NacosApp.process(serverAddr, "payments", "127.0.0.1", 9100).redirectOutput(log.toFile()).start();
    try {
      await().atMost(WAIT).until(() -> watched.get() != null && watched.get().instances().size() == 1
          && pushed.get().size() == 1);

      app.destroyForcibly(); // SIGKILL: no deregistration, no shutdown hook
      app.waitFor();
      long killed = System.nanoTime();
      await().atMost(WAIT).until(() -> watched.get().instances().isEmpty() && pushed.get().isEmpty());
      long tookMillis = (System.nanoTime() - killed) / 1_000_000;
      assertThat(tookMillis).as("gone from both views %d ms after the kill", tookMillis).isLessThan(2_000);
    } finally {
      app.destroyForcibly().waitFor();
      watch.dispose();
      subscriber.shutDown();
      rsocket.closeAndWait();
      server.disposeNow(WAIT);
      if (app.exitValue() != 137 && app.exitValue() != 9 && Files.exists(log)) {
        System.out.println(Files.readString(log));
      }
    }
  }
}
