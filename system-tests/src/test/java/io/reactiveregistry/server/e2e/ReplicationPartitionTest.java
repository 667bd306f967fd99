package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition of the replication links between two members (each reaches the other's RSocket port
 * through a {@link LinkProxy} the test pauses): both sides keep serving their own clients, each
 * drops the other's copies after the grace period, and once the links heal they converge on the
 * same instances without an operator.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class ReplicationPartitionTest {
  @TempDir
  Path dir;

  @Test
  void bothSidesServeTheirOwnClientsThroughAPartitionAndConvergeAfterItHeals() throws Exception {
    List<Integer> free = MemberPorts.free(6);
    int port1 = free.get(0);
    int port2 = free.get(1);
    int proxyTo1 = free.get(2);
    int proxyTo2 = free.get(3);
    String raft1 = "/" + free.get(4);
    String raft2 = "/" + free.get(5);
    // Each member reaches the other through a proxy; the Raft ports are direct.
    String seenByN1 = "n1=127.0.0.1:" + port1 + raft1 + ",n2=127.0.0.1:" + proxyTo2 + raft2;
    String seenByN2 = "n1=127.0.0.1:" + proxyTo1 + raft1 + ",n2=127.0.0.1:" + port2 + raft2;
    try (LinkProxy to1 = new LinkProxy(proxyTo1, port1); LinkProxy to2 = new LinkProxy(proxyTo2, port2)) {
      Process started1 = ServerProcess.spawnMember(dir.resolve("n1"), dir.resolve("n1.log"), "n1", seenByN1,
          "--replication-grace-ms", "2000", "--anti-entropy-interval-ms", "500");
      Process started2 = ServerProcess.spawnMember(dir.resolve("n2"), dir.resolve("n2.log"), "n2", seenByN2,
          "--replication-grace-ms", "2000", "--anti-entropy-interval-ms", "500");
      try (ServerProcess n1 = ServerProcess.awaitListening(started1, dir.resolve("n1.log"));
          ServerProcess n2 = ServerProcess.awaitListening(started2, dir.resolve("n2.log"));
          WireClient a = WireClient.connect(port1, "a");
          WireClient b = WireClient.connect(port2, "b")) {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> connected(port1) && connected(port2));
        a.call("instance.register", ReplicationEndToEndTest.ephemeral("split", "127.0.3.1", 8080));
        b.call("instance.register", ReplicationEndToEndTest.ephemeral("split", "127.0.3.2", 8080));
        await().atMost(Duration.ofSeconds(5)).until(() -> ids(port1).size() == 2 && ids(port2).size() == 2);

        to1.pause();
        to2.pause();
        // Each side goes on serving its own clients.
        a.call("instance.register", ReplicationEndToEndTest.ephemeral("split", "127.0.3.3", 8080));
        a.call("instance.deregister", ReplicationEndToEndTest.ephemeral("split", "127.0.3.1", 8080));
        b.call("instance.register", ReplicationEndToEndTest.ephemeral("split", "127.0.3.4", 8080));
        assertThat(ids(port1)).contains("127.0.3.3#8080#DEFAULT").doesNotContain("127.0.3.1#8080#DEFAULT");
        assertThat(ids(port2)).contains("127.0.3.4#8080#DEFAULT");
        // Past the keepalive (3 s) and the grace period, each has only its own.
        await().atMost(Duration.ofSeconds(15)).until(() -> ids(port1).equals(Set.of("127.0.3.3#8080#DEFAULT"))
            && ids(port2).equals(Set.of("127.0.3.2#8080#DEFAULT", "127.0.3.4#8080#DEFAULT")));

        to1.heal();
        to2.heal();
        Set<String> truth = Set.of("127.0.3.2#8080#DEFAULT", "127.0.3.3#8080#DEFAULT", "127.0.3.4#8080#DEFAULT");
        await().atMost(Duration.ofSeconds(15)).until(() -> ids(port1).equals(truth) && ids(port2).equals(truth));
        n1.assertNothingBlocked();
        n2.assertNothingBlocked();
      }
    }
  }

  private static boolean connected(int port) {
    try (WireClient client = WireClient.connect(port, "info")) {
      List<ClusterInfo.Peer> peers = client.call("server.info", "{}", ServerInfo.class).cluster().replication();
      return !peers.isEmpty() && peers.stream().allMatch(ClusterInfo.Peer::connected);
    }
  }

  private static Set<String> ids(int port) {
    try (WireClient client = WireClient.connect(port, "reader")) {
      return client.call("service.query", "{\"service\":\"split\"}", ServiceSnapshot.class).instances().stream()
          .map(InstanceBody::instanceId).collect(Collectors.toSet());
    }
  }
}
