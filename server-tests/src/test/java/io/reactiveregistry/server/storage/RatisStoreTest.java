package io.reactiveregistry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.server.core.DurableChange.InstanceSaved;
import io.reactiveregistry.server.core.DurableChange.Kind;
import io.reactiveregistry.server.core.DurableChange.OverrideSaved;
import io.reactiveregistry.server.core.DurableChange.Removed;
import io.reactiveregistry.server.core.DurableChange.ServiceSaved;
import io.reactiveregistry.server.core.DurableChange.Subject;
import io.reactiveregistry.server.core.InstanceOverride;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.ServiceKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Ratis store on a real disk: what it acknowledged comes back after it is reopened. */
class RatisStoreTest {
  private static final Duration RESTORE = Duration.ofSeconds(30);
  private final ServiceKey db = new ServiceKey("public", "DEFAULT_GROUP", "db");

  @TempDir
  Path dir;

  private static InstanceSpec instance(String ip, int port) {
    return new InstanceSpec(ip, port, "DEFAULT", 1.0, true, Map.of("role", "primary"));
  }

  private RatisStore open(long snapshotEvery) throws Exception {
    RatisStore store = RatisStore.open(new StorageConfig(dir, 0, snapshotEvery, 10_000));
    store.restored(RESTORE).block();
    return store;
  }

  @Test
  void acknowledgedChangesAreRestoredWithTheirLatestValuesAndTheRevision() throws Exception {
    try (RatisStore store = open(10_000)) {
      assertThat(store.restored(RESTORE).block().values()).isEmpty();
      store.append(List.of(new ServiceSaved(db, false, 0.5, Map.of("team", "a"), true),
          new InstanceSaved(db, instance("127.0.0.9", 5432))), 2).get(10, TimeUnit.SECONDS);
      store.append(List.of(new InstanceSaved(db, instance("127.0.0.10", 5432))), 3).get(10, TimeUnit.SECONDS);
      store.append(List.of(new Removed(new Subject(Kind.INSTANCE, db, "127.0.0.10#5432#DEFAULT"))), 4)
          .get(10, TimeUnit.SECONDS);
      store.append(List.of(new OverrideSaved(db, "127.0.0.9#5432#DEFAULT",
          new InstanceOverride(false, 2.0, Map.of("k", "v")))), 5).get(10, TimeUnit.SECONDS);
    }

    try (RatisStore store = open(10_000)) {
      Storage.Restored restored = store.restored(RESTORE).block();
      assertThat(restored.revision()).isEqualTo(5);
      assertThat(restored.values()).containsExactlyInAnyOrder(
          new ServiceSaved(db, false, 0.5, Map.of("team", "a"), true),
          new InstanceSaved(db, instance("127.0.0.9", 5432)),
          new OverrideSaved(db, "127.0.0.9#5432#DEFAULT", new InstanceOverride(false, 2.0, Map.of("k", "v"))));
    }
  }

  @Test
  void snapshotsBoundTheLogAndRestoreWithTheEntriesAfterThem() throws Exception {
    int instances = 300;
    try (RatisStore store = open(50)) {
      store.append(List.of(new ServiceSaved(db, false, 0.0, Map.of(), false)), 1).get(10, TimeUnit.SECONDS);
      for (int i = 0; i < instances; i++) {
        // One at a time, so that each is its own log entry and snapshots are due several times.
        store.append(List.of(new InstanceSaved(db, instance("127.0.1." + (i % 250), 1000 + i))), 2 + i)
            .get(10, TimeUnit.SECONDS);
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.map(path -> path.getFileName().toString()))
          .as("snapshots were written")
          .anyMatch(name -> name.matches("snapshot\\.\\d+_\\d+"));
    }

    try (RatisStore store = open(50)) {
      Storage.Restored restored = store.restored(RESTORE).block();
      assertThat(restored.values()).hasSize(instances + 1);
      assertThat(restored.revision()).isEqualTo(instances + 1);
    }
  }

  /**
   * Ratis asks for a snapshot on the thread that applies committed entries, and writing it there
   * held up every commit for as long as the disk took; the snapshot is written on a thread of its
   * own, from a copy, one at a time.
   */
  @Test
  void writesCommitWhileASnapshotIsBeingWrittenAndItIsRestoredWithTheEntriesAfterIt() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> snapshotWrites = new CopyOnWriteArrayList<>();
    Executor held = task -> {
      Thread thread = new Thread(() -> {
        try {
          release.await();
          task.run();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "held-snapshot-writer");
      snapshotWrites.add(thread);
      thread.start();
    };
    int instances = 40;
    try (RatisStore store = RatisStore.open(new StorageConfig(dir, 0, 5, 10_000), null, held)) {
      store.restored(RESTORE).block();
      try {
        for (int i = 0; i < instances; i++) { // each its own entry: a snapshot is due after five
          store.append(List.of(new InstanceSaved(db, instance("127.0.3." + i, 3000 + i))), 1 + i)
              .get(10, TimeUnit.SECONDS);
        }
        assertThat(snapshotWrites).as("snapshot writes started while one was held").hasSize(1);
        assertThat(snapshotFiles()).as("snapshots written while held").isEmpty();
      } finally {
        release.countDown();
      }
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !snapshotFiles().isEmpty());
      store.append(List.of(new InstanceSaved(db, instance("127.0.4.1", 4000))), instances + 1)
          .get(10, TimeUnit.SECONDS);
    }
    try (RatisStore store = open(5)) {
      Storage.Restored restored = store.restored(RESTORE).block();
      assertThat(restored.values()).hasSize(instances + 1);
      assertThat(restored.revision()).isEqualTo(instances + 1);
    }
  }

  private List<String> snapshotFiles() throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.map(path -> path.getFileName().toString()).filter(name -> name.matches("snapshot\\.\\d+_\\d+"))
          .toList();
    }
  }

  @Test
  void concurrentAppendsCompleteInOrderAndAreAllRestored() throws Exception {
    try (RatisStore store = open(10_000)) {
      List<CompletableFuture<Void>> futures = new ArrayList<>();
      List<Integer> completed = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int i = 0; i < 2_000; i++) {
        int n = i;
        futures.add(store.append(List.of(new InstanceSaved(db, instance("127.0.2." + (i % 250), 2000 + i))), i + 1)
            .thenRun(() -> completed.add(n)));
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      assertThat(store.barrier()).isCompleted();
      assertThat(completed).hasSize(2_000).isSorted();
    }
    try (RatisStore store = open(10_000)) {
      assertThat(store.restored(RESTORE).block().values()).hasSize(2_000);
    }
  }

  @Test
  void aWriteTheLogCannotTakeMarksStorageFailedAndLaterWritesAreRefused() throws Exception {
    try (RatisStore store = open(10_000)) {
      store.append(List.of(new ServiceSaved(db, false, 0.0, Map.of(), false)), 1).get(10, TimeUnit.SECONDS);
      assertThat(store.healthy()).isTrue();

      store.raftServer().close(); // the log is gone from under the store
      CompletableFuture<Void> lost = store.append(List.of(new InstanceSaved(db, instance("127.0.0.9", 5432))), 2);

      assertThat(lost).failsWithin(Duration.ofSeconds(40)).withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(StorageUnavailableException.class)
          .withMessageContaining("may not survive a restart");
      assertThat(store.healthy()).isFalse();
      assertThatThrownBy(store::checkWritable)
          .isInstanceOfSatisfying(StorageUnavailableException.class, e -> assertThat(e.busy()).isFalse())
          .hasMessageContaining("until the server restarts");
    }
  }

  @Test
  void whenTheQueueFillsDurableWritesAreRefusedAsBusyUntilItDrains() throws Exception {
    try (RatisStore store = RatisStore.open(new StorageConfig(dir, 0, 10_000, 50))) {
      store.restored(RESTORE).block(RESTORE);
      // Appends arrive far faster than the log commits them: the real queue fills up.
      List<CompletableFuture<Void>> accepted = new ArrayList<>();
      int refused = 0;
      for (int i = 0; i < 2_000; i++) {
        try {
          store.checkWritable();
          accepted.add(store.append(List.of(new InstanceSaved(db, instance("127.0.0.1", 1 + i))), i + 1));
        } catch (StorageUnavailableException busy) {
          assertThat(busy.busy()).isTrue();
          assertThat(busy.getMessage()).contains("retry");
          refused++;
        }
      }
      assertThat(refused).as("writes refused while 50 waited").isPositive();
      assertThat(accepted).isNotEmpty();
      CompletableFuture.allOf(accepted.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      assertThat(store.notDurable()).isZero();
      store.checkWritable(); // drained: writable again
    }
  }
}
