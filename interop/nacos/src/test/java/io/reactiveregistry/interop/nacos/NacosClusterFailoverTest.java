package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.interop.nacos.NacosCluster.Member;
import io.reactiveregistry.protocol.message.ServiceEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * A three-member cluster, every member in the Nacos clients' server list: the member holding a
 * client's connection is killed with SIGKILL; the client connects to another member and redoes its
 * registration there, and its instance stays in every surviving member's views: a subscriber there
 * is never pushed its removal, and another Nacos client keeps seeing it.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class NacosClusterFailoverTest {
  static final Duration WAIT = NacosCluster.WAIT;

  @Test
  void aClientWhoseMemberIsKilledMovesAndItsInstanceStaysInEveryView(@TempDir Path dir) throws Exception {
    List<Disposable> watches = new ArrayList<>();
    List<RegistryClient> watchers = new ArrayList<>();
    NamingService app = null;
    NamingService reader = null;
    try (NacosCluster cluster = new NacosCluster(dir, 3, "--replication-grace-ms", "20000")) {
      app = NamingFactory.createNamingService(NacosApp.properties(cluster.serverList(), null, null));
      app.registerInstance("payments", "127.0.0.1", 9400);
      reader = NamingFactory.createNamingService(NacosApp.properties(cluster.serverList(), null, null));
      NamingService readerClient = reader;
      for (Member member : cluster.members()) {
        await().atMost(WAIT).until(() -> cluster.instances(member, "payments").contains("127.0.0.1#9400#DEFAULT"));
      }
      Member holder = cluster.members().stream().filter(m -> cluster.ownedBy(m, "payments") == 1).findFirst()
          .orElseThrow();

      Map<String, List<ServiceEvent>> seen = new LinkedHashMap<>();
      for (Member member : cluster.members()) {
        if (member != holder) {
          RegistryClient watcher = RegistryClient.builder().servers(member.rsocket())
              .clientName("watcher-" + member.id()).build();
          watchers.add(watcher);
          List<ServiceEvent> events = new CopyOnWriteArrayList<>();
          seen.put(member.id(), events);
          watches.add(watcher.events(ServiceName.of("payments"), null, false).subscribe(events::add));
          await().atMost(WAIT).until(() -> !events.isEmpty());
        }
      }

      holder.process().destroyForcibly().waitFor();
      // The client finds its connection gone, connects to another member and registers there again.
      await().atMost(WAIT).until(() -> cluster.members().stream().filter(m -> m != holder)
          .anyMatch(m -> cluster.ownedBy(m, "payments") == 1));
      for (Member member : cluster.members()) {
        if (member != holder) {
          assertThat(cluster.instances(member, "payments")).as(member.id()).contains("127.0.0.1#9400#DEFAULT");
          assertThat(seen.get(member.id())).as("events on " + member.id())
              .noneMatch(event -> ServiceEvent.REMOVE.equals(event.type()));
        }
      }
      assertThat(readerClient.getAllInstances("payments")).extracting(i -> i.getPort()).containsExactly(9400);
    } finally {
      watches.forEach(Disposable::dispose);
      watchers.forEach(RegistryClient::closeAndWait);
      if (app != null) {
        app.shutDown();
      }
      if (reader != null) {
        reader.shutDown();
      }
    }
  }
}
