package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.storage.BackupFile;
import io.reactiveregistry.server.storage.StorageConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup taken while a writer registers persistent instances holds every write acknowledged
 * before it was asked for; a fresh single server and a fresh three-member cluster started from it
 * hold exactly what it holds, and go on taking writes; a damaged file and a data directory that
 * already holds state are refused, naming why.
 */
@Tag("process") // the cluster part starts processes: skipped by -Pquick, run in CI
class BackupRestoreTest {
  static final String SERVICE = "orders";

  @TempDir
  static Path dir;
  static Path backup;
  /** The instances acknowledged before the backup was asked for. */
  static Set<String> acknowledgedBefore;
  /** Every instance id the backup holds, read from the file. */
  static Set<String> inBackup;
  /** The instances whose registration was sent after the backup had been answered. */
  static Set<String> sentAfter;

  @BeforeAll
  static void backUpUnderWrites() throws Exception {
    RegistryServer source = start(StorageConfig.onDisk(dir.resolve("source")));
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    List<String> sent = new CopyOnWriteArrayList<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer = new Thread(() -> {
      try (WireClient client = WireClient.connect(source.tcpPort(), "writer")) {
        for (int n = 0; writing.get(); n++) {
          String ip = "127.0." + (n / 250) + "." + (n % 250 + 1);
          sent.add(ip + "#8080#DEFAULT");
          client.call("instance.register", unchecked(ip, 8080));
          acknowledged.add(ip + "#8080#DEFAULT");
        }
      }
    }, "backup-writer");
    writer.start();
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() >= 300);
      acknowledgedBefore = Set.copyOf(acknowledged);
      HttpResponse<byte[]> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + source.httpPort() + "/api/v1/backup")).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(answer.statusCode()).as(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo(200);
      backup = dir.resolve("registry.backup");
      Files.write(backup, answer.body());
      // The registration in flight as the answer came may be in it or not; every later one must not.
      int inFlight = sent.size();
      // Writes go on after the backup: they must not be in it, nor in what is restored from it.
      int atBackup = acknowledged.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.size() >= atBackup + 100);
      // A copy first: a view of the list the writer still appends to fails when it grows.
      List<String> sentSoFar = List.copyOf(sent);
      sentAfter = Set.copyOf(sentSoFar.subList(inFlight, sentSoFar.size()));
    } finally {
      writing.set(false);
      writer.join(10_000);
      source.disposeNow(Duration.ofSeconds(10));
    }
    inBackup = instanceIdsIn(backup);
  }

  @Test
  void theBackupHoldsEveryWriteAcknowledgedBeforeItWasAskedForAndNotTheLaterOnes() throws IOException {
    assertThat(inBackup).containsAll(acknowledgedBefore);
    BackupFile.Contents contents = BackupFile.read(backup);
    assertThat(contents.revision()).isPositive();
    assertThat(sentAfter).as("registrations sent after the backup was answered").hasSizeGreaterThanOrEqualTo(99);
    assertThat(inBackup).as("writes sent after the backup was answered are not in it").doesNotContainAnyElementsOf(
        sentAfter);
  }

  @Test
  void aFreshSingleServerRestoredFromTheBackupHoldsExactlyItsStateAndTakesWritesAboveItsRevision()
      throws Exception {
    RegistryServer restored = start(StorageConfig.onDisk(dir.resolve("single")).withRestoreFrom(backup));
    try (WireClient client = WireClient.connect(restored.tcpPort(), "reader")) {
      assertThat(instanceIds(client)).isEqualTo(new TreeSet<>(inBackup));
      client.call("instance.register", unchecked("127.0.200.1", 8080));
      assertThat(instanceIds(client)).contains("127.0.200.1#8080#DEFAULT").hasSize(inBackup.size() + 1);
      long revision = client.call("service.query", "{\"service\":\"" + SERVICE + "\"}", ServiceSnapshot.class)
          .revision();
      assertThat(revision).isGreaterThan(BackupFile.read(backup).revision());
    } finally {
      restored.disposeNow(Duration.ofSeconds(10));
    }
    // Started again without the file, it keeps what it restored and what it took since.
    RegistryServer again = start(StorageConfig.onDisk(dir.resolve("single")));
    try (WireClient client = WireClient.connect(again.tcpPort(), "reader")) {
      assertThat(instanceIds(client)).contains("127.0.200.1#8080#DEFAULT").containsAll(inBackup);
    } finally {
      again.disposeNow(Duration.ofSeconds(10));
    }
  }

  @Test
  void aDamagedBackupIsRefusedAndNothingIsRestored() throws Exception {
    byte[] bytes = Files.readAllBytes(backup);
    int lastLine = new String(bytes, StandardCharsets.UTF_8).lastIndexOf("127.0.");
    bytes[lastLine + 6] = (byte) (bytes[lastLine + 6] == '9' ? '8' : '9');
    Path damaged = dir.resolve("damaged.backup");
    Files.write(damaged, bytes);
    assertThatThrownBy(() -> start(StorageConfig.onDisk(dir.resolve("from-damaged")).withRestoreFrom(damaged)))
        .hasMessageContaining("is damaged").hasMessageContaining("nothing was restored");
    Path cut = dir.resolve("cut.backup");
    Files.write(cut, Arrays.copyOf(Files.readAllBytes(backup), bytes.length - 40));
    assertThatThrownBy(() -> start(StorageConfig.onDisk(dir.resolve("from-cut")).withRestoreFrom(cut)))
        .hasMessageContaining("is damaged");
    Path notABackup = dir.resolve("not-a-backup");
    Files.writeString(notABackup, "hello\n");
    assertThatThrownBy(() -> start(StorageConfig.onDisk(dir.resolve("from-nothing")).withRestoreFrom(notABackup)))
        .hasMessageContaining("is not a backup of this registry");
  }

  @Test
  void aDataDirectoryThatHoldsStateIsNotRestoredInto() throws Exception {
    Path used = dir.resolve("used");
    start(StorageConfig.onDisk(used)).disposeNow(Duration.ofSeconds(10));
    assertThatThrownBy(() -> start(StorageConfig.onDisk(used).withRestoreFrom(backup)))
        .hasMessageContaining("already holds durable state");
  }

  @Test
  void aFreshThreeMemberClusterSeededFromTheBackupHoldsItsStateOnEveryMember() throws Exception {
    List<Integer> free = MemberPorts.free(6);
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      entries.add("n" + (i + 1) + "=127.0.0.1:" + free.get(2 * i) + "/" + free.get(2 * i + 1));
    }
    String members = String.join(",", entries);
    List<Process> started = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      started.add(ServerProcess.spawnMember(dir.resolve("cluster-n" + i), dir.resolve("cluster-n" + i + ".log"),
          "n" + i, members, "--restore-from", backup.toString()));
    }
    List<ServerProcess> nodes = new ArrayList<>();
    try {
      for (int i = 1; i <= 3; i++) {
        nodes.add(ServerProcess.awaitListening(started.get(i - 1), dir.resolve("cluster-n" + i + ".log")));
      }
      for (int i = 0; i < 3; i++) {
        int port = free.get(2 * i);
        String member = "member n" + (i + 1);
        // Asked again if a member is too slow to answer within the client's 5 s: on a loaded machine
        // a member that has just opened its ports may still be electing.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(IllegalStateException.class)
            .untilAsserted(() -> {
              try (WireClient client = WireClient.connect(port, "reader")) {
                assertThat(instanceIds(client)).as(member).isEqualTo(new TreeSet<>(inBackup));
              }
            });
      }
      // The seeded cluster commits as any other: a write through one member is on every member.
      try (WireClient client = WireClient.connect(free.get(2), "writer")) {
        client.call("instance.register", unchecked("127.0.201.1", 8080));
      }
      for (int i = 0; i < 3; i++) {
        int port = free.get(2 * i);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
          try (WireClient client = WireClient.connect(port, "reader")) {
            assertThat(instanceIds(client)).contains("127.0.201.1#8080#DEFAULT").hasSize(inBackup.size() + 1);
          }
        });
      }
    } finally {
      for (ServerProcess node : nodes) {
        node.close();
      }
      started.forEach(Process::destroyForcibly);
    }
  }

  static RegistryServer start(StorageConfig storage) {
    return RegistryServer.start(ServerConfig.ephemeralLoopback().withStorage(storage)).block(Duration.ofSeconds(30));
  }

  /** A persistent instance the server does not health-check: its state stays what was written. */
  static String unchecked(String ip, int port) {
    return "{\"service\":\"" + SERVICE + "\",\"ephemeral\":false,\"instance\":{\"ip\":\"" + ip + "\",\"port\":" + port
        + ",\"metadata\":{\"health.check.enabled\":\"false\"}}}";
  }

  static TreeSet<String> instanceIds(WireClient client) {
    ServiceSnapshot snapshot = client.call("service.query", "{\"service\":\"" + SERVICE + "\"}", ServiceSnapshot.class);
    return snapshot.instances().stream().map(InstanceBody::instanceId).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The instance ids of the backup's instance lines, read as a person would (one JSON object a line). */
  static Set<String> instanceIdsIn(Path file) throws IOException {
    Set<String> ids = new HashSet<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (String line : lines.subList(1, lines.size())) {
      Map<?, ?> value = JsonCodec.json().decode(line, Map.class);
      if ("instance".equals(value.get("op")) && SERVICE.equals(value.get("service"))) {
        ids.add(value.get("ip") + "#" + value.get("port") + "#" + value.get("cluster"));
      }
    }
    return ids;
  }
}
