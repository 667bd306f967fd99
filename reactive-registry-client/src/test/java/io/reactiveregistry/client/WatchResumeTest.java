package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.e2e.LinkProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * A watch whose connection drops resumes from the last revision it saw: the server sends only
 * what changed meanwhile, not the whole view again.
 */
class WatchResumeTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(15);

  private static List<String> ips(ServiceView view) {
    return view.instances().stream().map(InstanceBody::ip).sorted().toList();
  }

  @Test
  void aWatchResumesAfterItsConnectionDropsAndSeesWhatChangedMeanwhile() throws Exception {
    RegistryServer server = TestServers.start(0);
    try (LinkProxy link = new LinkProxy(0, server.tcpPort())) {
      RegistryClient app = RegistryClient.builder().servers(TestServers.address(server)).clientName("app").build();
      RegistryClient gateway = RegistryClient.builder().servers("tcp://127.0.0.1:" + link.port())
          .clientName("gateway").reconnectBackoff(Duration.ofMillis(200), Duration.ofMillis(500)).build();
      // Registered before the watch opens: every view the watch shows, the resumed ones included, has it.
      // (Registered after, the watch's first view may come before the registration, empty.)
      app.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
      List<ServiceView> views = new CopyOnWriteArrayList<>();
      Disposable watch = gateway.watch(ORDERS).subscribe(views::add);
      try {
        await().atMost(WAIT).until(() -> !views.isEmpty() && ips(views.get(views.size() - 1)).size() == 1);

        link.cut();
        app.register(ORDERS, InstanceBody.of("127.0.0.6", 8080, null, 1.0, Map.of())).block(WAIT);
        app.register(ORDERS, InstanceBody.of("127.0.0.7", 8080, null, 1.0, Map.of())).block(WAIT);

        await().atMost(WAIT).untilAsserted(() -> {
          ServiceView latest = views.get(views.size() - 1);
          assertThat(latest.stale()).isFalse();
          assertThat(ips(latest)).containsExactly("127.0.0.5", "127.0.0.6", "127.0.0.7");
        });
        assertThat(server.runtime().resumes(true)).as("the watch resumed").isEqualTo(1);
        assertThat(server.runtime().resumes(false)).as("no snapshot instead").isZero();
        assertThat(views).allSatisfy(view -> assertThat(view.instances()).isNotEmpty());
      } finally {
        watch.dispose();
        app.closeAndWait();
        gateway.closeAndWait();
      }
    } finally {
      server.disposeNow(Duration.ofSeconds(5));
    }
  }
}
