package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.pojo.Instance;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.interop.nacos.NacosCluster.Member;
import io.reactiveregistry.protocol.message.ServiceEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * Rebalancing moves Nacos clients too. Nine applications using Nacos's own naming client, every
 * member in their server list, spread over three members; one member is killed, its clients move
 * to the two others (their own failover), and it is started again: holding none of the nine, it is
 * below its share, and the others tell their newest Nacos clients to connect to it ({@code
 * ConnectResetRequest} naming it) until each holds three. A Nacos client closes its old connection
 * before it registers again on the new member, so the old member keeps what the connection owned
 * until the new one has taken it over: no subscriber is ever pushed a removal, and every instance
 * stays listed throughout. Then that member is stopped (SIGTERM): it names to each of its clients
 * the member holding the fewest, and its three spread over the two others, again with no removal.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class NacosRebalancingTest {
  static final int APPS = 9;
  static final String TOLD = "registry_nacos_moves_total{outcome=\"told\"}";
  static final String CAME_BACK = "registry_nacos_moves_total{outcome=\"came_back\"}";

  @Test
  void nacosClientsAreSpreadOverAMemberThatCameBackAndNoViewLosesTheirInstances(@TempDir Path dir)
      throws Exception {
    List<Disposable> watches = new ArrayList<>();
    List<RegistryClient> watchers = new ArrayList<>();
    List<NamingService> apps = new ArrayList<>();
    // The killed member's instances stay as copies on the others until its clients have registered there.
    try (NacosCluster cluster = new NacosCluster(dir, 3, "--replication-grace-ms", "20000")) {
      List<Member> members = cluster.members();
      Member killed = members.get(2);
      Map<String, List<ServiceEvent>> seen = new LinkedHashMap<>();
      for (Member member : members.subList(0, 2)) {
        RegistryClient watcher = RegistryClient.builder().servers(member.rsocket())
            .clientName("watcher-" + member.id()).build();
        watchers.add(watcher);
        List<ServiceEvent> events = new CopyOnWriteArrayList<>();
        seen.put(member.id(), events);
        watches.add(watcher.events(ServiceName.of("fleet"), null, false).subscribe(events::add));
      }
      for (int i = 0; i < APPS; i++) {
        NamingService app = NamingFactory.createNamingService(NacosApp.properties(cluster.serverList(), null, null));
        apps.add(app);
        app.registerInstance("fleet", "127.0.0.1", 9500 + i);
      }
      await().atMost(NacosCluster.WAIT).until(() -> owned(cluster, members) == APPS);

      killed.process().destroyForcibly().waitFor();
      await().atMost(NacosCluster.WAIT).until(() -> owned(cluster, members.subList(0, 2)) == APPS);
      cluster.start(killed);
      cluster.awaitReady(killed);
      long ready = System.nanoTime();

      // Spread again: three each.
      await().atMost(NacosCluster.WAIT).until(() -> members.stream()
          .allMatch(member -> cluster.ownedBy(member, "fleet") == APPS / members.size()));
      System.out.printf("NacosRebalancingTest: %d Nacos clients spread over the three members %d ms after the "
          + "restarted one was ready%n", APPS, (System.nanoTime() - ready) / 1_000_000);
      for (Member member : members) {
        String listed = cluster.instances(member, "fleet");
        for (int i = 0; i < APPS; i++) {
          assertThat(listed).as(member.id()).contains("127.0.0.1#" + (9500 + i) + "#DEFAULT");
        }
      }
      for (Map.Entry<String, List<ServiceEvent>> events : seen.entrySet()) {
        assertThat(events.getValue()).as("what a subscriber on " + events.getKey() + " was pushed")
            .isNotEmpty()
            .noneMatch(event -> ServiceEvent.REMOVE.equals(event.type()));
      }
      for (NamingService app : apps) {
        assertThat(app.getAllInstances("fleet")).extracting(Instance::getPort).hasSize(APPS);
      }

      // Stopped (SIGTERM), a member sends each of its clients to the member then holding the fewest:
      // its three split over the two others (5 and 4). Told no member, each would go to the next
      // server of its own list, wherever that index points (6 and 3 in a run without this).
      // First the digests (every 2 s) carry the 3/3/3 spread.
      Thread.sleep(4_500);
      killed.process().destroy();
      assertThat(killed.process().waitFor(30, TimeUnit.SECONDS)).as("stopped").isTrue();
      await().atMost(NacosCluster.WAIT).until(() -> owned(cluster, members.subList(0, 2)) == APPS);
      Files.readString(dir.resolve(killed.id() + ".log")).lines().filter(line -> line.contains("Nacos client"))
          .forEach(line -> System.out.println("NacosRebalancingTest: " + killed.id() + ": " + line));
      int first = cluster.ownedBy(members.get(0), "fleet");
      int second = cluster.ownedBy(members.get(1), "fleet");
      assertThat(Math.abs(first - second)).as("the stopped member's clients spread: %d and %d", first, second)
          .isLessThanOrEqualTo(1);
      // Each was told where (its own list alone would have spread them at random, or not at all).
      assertThat(Files.readString(dir.resolve(killed.id() + ".log"))).as(killed.id() + "'s log")
          .containsPattern("told 3 Nacos client\\(s\\) to reconnect elsewhere: [12] to ("
              + members.get(0).nacosAddress() + "|" + members.get(1).nacosAddress() + "), [12] to ("
              + members.get(0).nacosAddress() + "|" + members.get(1).nacosAddress() + ")");
      for (Map.Entry<String, List<ServiceEvent>> events : seen.entrySet()) {
        assertThat(events.getValue()).as("what a subscriber on " + events.getKey() + " was pushed, after the stop")
            .noneMatch(event -> ServiceEvent.REMOVE.equals(event.type()));
      }
    } finally {
      watches.forEach(Disposable::dispose);
      watchers.forEach(RegistryClient::closeAndWait);
      for (NamingService app : apps) {
        app.shutDown();
      }
    }
  }

  @Test
  void clientsWhoseServerListLacksTheMemberTheyAreSentToComeBackAndAreNotToldAgain(@TempDir Path dir)
      throws Exception {
    List<NamingService> apps = new ArrayList<>();
    RegistryClient watcher = null;
    // Digests and rebalancing rounds every 500 ms, not 2 s: more rounds to tell a client again in the time watched.
    try (NacosCluster cluster = new NacosCluster(dir, 2, "--anti-entropy-interval-ms", "500")) {
      Member first = cluster.members().get(0);
      watcher = RegistryClient.builder().servers(first.rsocket()).clientName("watcher").build();
      List<ServiceEvent> events = new CopyOnWriteArrayList<>();
      Disposable watch = watcher.events(ServiceName.of("pinned"), null, false).subscribe(events::add);
      // Five on one member of two: past the rule's slack, two or so are told to move to the other.
      for (int i = 0; i < 5; i++) {
        NamingService app = NamingFactory.createNamingService(NacosApp.properties(
            NacosCluster.serverList(List.of(first)), null, null));
        apps.add(app);
        app.registerInstance("pinned", "127.0.0.1", 9600 + i);
      }
      await().atMost(NacosCluster.WAIT).until(() -> cluster.metric(first, CAME_BACK) >= 1);
      Thread.sleep(4_000); // a Nacos client redoes its registrations within 3 s: those that came back are known by then
      double told = cluster.metric(first, TOLD);
      assertThat(cluster.metric(first, CAME_BACK)).as("came back").isEqualTo(told);
      Thread.sleep(2_000); // four rounds: told again, they would be told every round or two
      assertThat(cluster.metric(first, TOLD)).as("told to move, later").isEqualTo(told);
      assertThat(cluster.ownedBy(first, "pinned")).isEqualTo(5);
      assertThat(events).isNotEmpty().noneMatch(event -> ServiceEvent.REMOVE.equals(event.type()));
      watch.dispose();
    } finally {
      if (watcher != null) {
        watcher.closeAndWait();
      }
      for (NamingService app : apps) {
        app.shutDown();
      }
    }
  }

  @Test
  void membersSharingAHostAreNeverNamedToNacosClients(@TempDir Path dir) throws Exception {
    List<NamingService> apps = new ArrayList<>();
    try (NacosCluster cluster = new NacosCluster(dir, 2, false, "--anti-entropy-interval-ms", "500")) {
      Member first = cluster.members().get(0);
      for (int i = 0; i < 5; i++) {
        NamingService app = NamingFactory.createNamingService(NacosApp.properties(
            NacosCluster.serverList(List.of(first)), null, null));
        apps.add(app);
        app.registerInstance("shared", "127.0.0.1", 9700 + i);
      }
      // Five of five on one member is past the rule's slack; but a Nacos client tells servers
      // apart by IP, and could not be sent to the other member on the same one.
      await().atMost(NacosCluster.WAIT).until(() -> cluster.ownedBy(first, "shared") == 5);
      Thread.sleep(2_000); // four digests and rounds
      for (Member member : cluster.members()) {
        assertThat(cluster.metric(member, TOLD)).as("told to move by " + member.id()).isZero();
      }
      assertThat(cluster.ownedBy(first, "shared")).isEqualTo(5);
    } finally {
      for (NamingService app : apps) {
        app.shutDown();
      }
    }
  }

  /** The instances of the fleet that the members' own connections hold, over {@code members}. */
  private static int owned(NacosCluster cluster, List<Member> members) {
    return members.stream().mapToInt(member -> cluster.ownedBy(member, "fleet")).sum();
  }
}
