package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.e2e.MemberPorts;
import io.reactiveregistry.server.e2e.WireClient;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.storage.StorageConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;

/**
 * A three-member cluster in this JVM, for the client's cluster tests: n1, n2 and n3 on loopback
 * ports of their own, each keeping its data in a folder of {@code dir}.
 */
final class TestCluster {
  /** The RSocket TCP ports of n1, n2 and n3, then their Raft ports. */
  final List<Integer> ports = MemberPorts.free(6);
  /** The three, as {@code --members} gives them. */
  final String members = "n1=127.0.0.1:" + ports.get(0) + "/" + ports.get(3) + ",n2=127.0.0.1:" + ports.get(1) + "/"
      + ports.get(4) + ",n3=127.0.0.1:" + ports.get(2) + "/" + ports.get(5);
  private final Path dir;

  TestCluster(Path dir) {
    this.dir = dir;
  }

  /** The RSocket TCP port of member {@code n} (1 to 3). */
  int port(int n) {
    return ports.get(n - 1);
  }

  /** Member {@code n}: HTTP and WebSocket on any free port, Nacos's door off, these timings. */
  ServerConfig member(int n, HeartbeatTimings heartbeat, Replication.Settings replication) {
    return ServerConfig.DEFAULTS.withHost("127.0.0.1").withTcpPort(port(n)).withWebSocketPort(0).withHttpPort(0)
        .withNacos(NacosDoor.Settings.OFF)
        .withHeartbeat(heartbeat)
        .withReplication(replication)
        .withStorage(new StorageConfig(dir.resolve("n" + n), 0, 10_000, 10_000)
            .withCluster(ClusterConfig.parse("n" + n, members))
            .withLeaderWarmUp(false)); // three throwaway groups more in this JVM would only cost CPU here
  }

  /**
   * Whether the member on RSocket port {@code port} follows both other members' replication
   * streams, as a rolling restart awaits before it stops the next member.
   */
  static boolean streamsFromAll(int port) {
    try (WireClient ops = WireClient.connect(port, "ops")) {
      List<ClusterInfo.Peer> peers = ops.call("server.info", "{}", ServerInfo.class).cluster().replication();
      return peers.size() == 2 && peers.stream().allMatch(ClusterInfo.Peer::connected);
    }
  }

  /** Starts the three members, {@code config} giving member n's configuration; in order n1, n2, n3. */
  static List<RegistryServer> start(IntFunction<ServerConfig> config) {
    return Flux.range(1, 3).flatMapSequential(n -> RegistryServer.start(config.apply(n)))
        .collectList().block(Duration.ofSeconds(60));
  }
}
