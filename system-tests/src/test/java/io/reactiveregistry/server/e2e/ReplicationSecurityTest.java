package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.handler.ssl.SslContext;
import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Members whose ports need mutual TLS and a token for every request: each member reaches its
 * peers' RSocket ports over TLS with its own certificate and presents the token of {@code
 * --peer-token-file}, so an instance registered on one is seen on the other; their Raft ports
 * speak mutual TLS too, so durable writes commit between them while a party without a certificate
 * from the cluster's CA is refused.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class ReplicationSecurityTest {
  private static final String OPERATOR = "cluster-ops-token-7d1f";

  @TempDir
  Path dir;

  @Test
  void membersNeedingMutualTlsAndTokensReplicateWithTheirCertificatesAndThePeerToken() throws Exception {
    TestCertificates ca = TestCertificates.authority(dir, "cluster-ca");
    Path[] n1Certificate = ca.issue("n1", true);
    Path[] n2Certificate = ca.issue("n2", true);
    Path[] appCertificate = ca.issue("app", false);
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, TokenFile.of(Map.of(OPERATOR, "{\"*\":[\"read\",\"write\",\"admin\"]}")));
    Path peerToken = dir.resolve("peer-token");
    Files.writeString(peerToken, OPERATOR + "\n");
    List<Integer> free = MemberPorts.free(4);
    String members = "n1=127.0.0.1:" + free.get(0) + "/" + free.get(2) + ",n2=127.0.0.1:" + free.get(1) + "/"
        + free.get(3);
    Process started1 = spawn("n1", members, n1Certificate, ca, tokens, peerToken);
    Process started2 = spawn("n2", members, n2Certificate, ca, tokens, peerToken);
    SslContext tls = TestCertificates.trusting(ca.certificate(), appCertificate);
    try (ServerProcess n1 = ServerProcess.awaitListening(started1, dir.resolve("n1.log"));
        ServerProcess n2 = ServerProcess.awaitListening(started2, dir.resolve("n2.log"));
        WireClient app = WireClient.connectTls(free.get(0), "app", tls).bearer(OPERATOR);
        WireClient reader = WireClient.connectTls(free.get(1), "reader", tls).bearer(OPERATOR)) {
      // Each member replicates from the other over a link of its own: wait for both.
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> replicating(reader) && replicating(app));
      app.call("instance.register", ReplicationEndToEndTest.ephemeral("secured", "127.0.4.1", 8443));
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
          reader.call("service.query", "{\"service\":\"secured\"}", ServiceSnapshot.class).instances())
          .extracting(InstanceBody::instanceId).containsExactly("127.0.4.1#8443#DEFAULT"));
      assertThat(n1.log()).doesNotContain(OPERATOR).doesNotContain("accepts any peer").contains("replicating from n2");

      // Durable: committed through Raft over mutual TLS (two members: both must take it).
      app.call("instance.register", "{\"service\":\"vault\",\"ephemeral\":false,"
          + "\"instance\":{\"ip\":\"127.0.4.2\",\"port\":8200}}");
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
          reader.call("service.query", "{\"service\":\"vault\"}", ServiceSnapshot.class).instances())
          .extracting(InstanceBody::instanceId).containsExactly("127.0.4.2#8200#DEFAULT"));
      String raftPort = "127.0.0.1:" + free.get(2);
      assertThat(RaftPorts.groupInfo(raftPort, "n1", n2Certificate, ca.certificate()))
          .as("a member's certificate opens the Raft port").contains("n1", "n2");
      TestCertificates stranger = TestCertificates.authority(dir, "stranger-ca");
      Path[] impostor = stranger.issue("impostor", true);
      assertThatThrownBy(() -> RaftPorts.groupInfo(raftPort, "n1", impostor, ca.certificate()))
          .as("a certificate from another CA").isInstanceOf(IOException.class);
      assertThatThrownBy(() -> RaftPorts.groupInfo(raftPort, "n1", null, ca.certificate()))
          .as("no certificate").isInstanceOf(IOException.class);
      assertThatThrownBy(() -> RaftPorts.groupInfo(raftPort, "n1", null, null))
          .as("plain TCP").isInstanceOf(IOException.class);
      n1.assertNothingBlocked();
      n2.assertNothingBlocked();
    }
  }

  private Process spawn(String id, String members, Path[] certificate, TestCertificates ca, Path tokens,
      Path peerToken) throws Exception {
    return ServerProcess.spawnMember(dir.resolve(id), dir.resolve(id + ".log"), id, members,
        "--tls-cert-file", certificate[0].toString(), "--tls-key-file", certificate[1].toString(),
        "--tls-client-ca-file", ca.certificate().toString(), "--token-file", tokens.toString(),
        "--peer-token-file", peerToken.toString());
  }

  /** Whether the member the client is connected to replicates from its one peer. */
  private static boolean replicating(WireClient client) {
    List<ClusterInfo.Peer> peers = client.call("server.info", "{}", ServerInfo.class).cluster().replication();
    return peers.size() == 1 && peers.get(0).connected();
  }
}
