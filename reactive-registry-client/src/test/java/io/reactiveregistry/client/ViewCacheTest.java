package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.e2e.MemberPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The views kept on disk: a client that starts while no registry server can be reached watches
 * and chooses from them (stale), then from live views once a server answers; a kept view too old,
 * or a damaged file, is not used.
 */
class ViewCacheTest {
  private static final ServiceName ORDERS = ServiceName.of("orders");
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path cache;

  /**
   * Runs a server, has an owner register 127.0.0.5:8080 in orders, watches it with a cache until it
   * is kept, then stops the server (before the owner could deregister it); returns the port.
   */
  private int keepAView() throws Exception {
    // Below the ephemeral range: the port is bound again while clients reconnect to it.
    RegistryServer server = TestServers.start(MemberPorts.free(1).get(0));
    RegistryClient owner = RegistryClient.builder().servers(TestServers.address(server)).clientName("owner").build();
    RegistryClient client = RegistryClient.builder().servers(TestServers.address(server)).clientName("first")
        .viewCache(cache, Duration.ofHours(1)).build();
    try {
      owner.register(ORDERS, InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of())).block(WAIT);
      await().atMost(WAIT).until(() -> client.watch(ORDERS, List.of(), true).blockFirst(WAIT).instances().size() == 1);
      await().atMost(WAIT).until(() -> {
        try (Stream<Path> files = Files.list(cache)) {
          return files.anyMatch(file -> file.toString().endsWith(".view"));
        }
      });
      return server.tcpPort();
    } finally {
      server.disposeNow(Duration.ofSeconds(5)); // every member gone; the clients keep what they saw
      client.closeAndWait();
      owner.closeAndWait();
    }
  }

  private RegistryClient startingAlone(int port, Duration maxAge) {
    return RegistryClient.builder().servers("tcp://127.0.0.1:" + port).clientName("second")
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).viewCache(cache, maxAge).build();
  }

  @Test
  void aClientStartingWithEveryServerDownServesTheViewsItKeptThenLiveOnes() throws Exception {
    int port = keepAView();
    RegistryClient second = startingAlone(port, Duration.ofHours(1));
    RegistryServer back = null;
    try {
      ServiceView kept = second.watch(ORDERS, List.of(), true).blockFirst(WAIT);
      assertThat(kept.stale()).isTrue();
      assertThat(kept.instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.5");
      assertThat(second.choose(ORDERS).block(WAIT).port()).isEqualTo(8080);

      back = TestServers.start(port); // a server answers again, empty until the fleet registers
      RegistryClient fleet = RegistryClient.builder().servers("tcp://127.0.0.1:" + port).clientName("fleet").build();
      try {
        fleet.register(ORDERS, InstanceBody.of("127.0.0.6", 8081, null, 1.0, Map.of())).block(WAIT);
        await().atMost(WAIT).untilAsserted(() -> {
          ServiceView live = second.watch(ORDERS, List.of(), true).blockFirst(WAIT);
          assertThat(live.stale()).isFalse();
          assertThat(live.instances()).extracting(InstanceBody::ip).containsExactly("127.0.0.6");
        });
      } finally {
        fleet.closeAndWait();
      }
    } finally {
      second.closeAndWait();
      if (back != null) {
        back.disposeNow(Duration.ofSeconds(5));
      }
    }
  }

  @Test
  void aKeptViewOlderThanItsMaximumAgeOrDamagedIsNotUsed() throws Exception {
    int port = keepAView();
    RegistryClient tooOld = startingAlone(port, Duration.ofMillis(1));
    try {
      await().atMost(WAIT).until(tooOld::isUnreachable);
      assertThatThrownBy(() -> tooOld.choose(ORDERS).block(WAIT)).isInstanceOf(RegistryUnavailableException.class);
    } finally {
      tooOld.closeAndWait();
    }

    try (Stream<Path> files = Files.list(cache)) {
      Path kept = files.filter(file -> file.toString().endsWith(".view")).findFirst().orElseThrow();
      byte[] content = Files.readAllBytes(kept);
      content[content.length - 2] ^= 1; // one bit flipped in the view's JSON
      Files.write(kept, content);
    }
    RegistryClient damaged = startingAlone(port, Duration.ofHours(1));
    try {
      await().atMost(WAIT).until(damaged::isUnreachable);
      assertThatThrownBy(() -> damaged.choose(ORDERS).block(WAIT)).isInstanceOf(RegistryUnavailableException.class);
    } finally {
      damaged.closeAndWait();
    }
  }
}
