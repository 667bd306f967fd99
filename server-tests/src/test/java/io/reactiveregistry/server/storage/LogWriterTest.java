package io.reactiveregistry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.DurableChange.Kind;
import io.reactiveregistry.server.core.DurableChange.Removed;
import io.reactiveregistry.server.core.DurableChange.Subject;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.TraceContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The log writer against a log the test controls: batching, order, and failures. */
class LogWriterTest {
  private final ServiceKey db = new ServiceKey("public", "DEFAULT_GROUP", "db");
  /** Each entry written, and the future the test completes to commit it. */
  private final List<ChangeCodec.Entry> entries = new CopyOnWriteArrayList<>();
  private final List<CompletableFuture<Void>> commits = new CopyOnWriteArrayList<>();
  /** Holds the writer inside its first write (as a slow log would) until the test opens it. */
  private final CountDownLatch firstWriteReturns = new CountDownLatch(1);
  private final LogWriter writer = new LogWriter(entry -> {
    entries.add(ChangeCodec.decodeEntry(new ByteArrayInputStream(entry)));
    CompletableFuture<Void> commit = new CompletableFuture<>();
    commits.add(commit);
    if (entries.size() == 1) {
      awaitUninterruptibly(firstWriteReturns);
    }
    return commit;
  }, "test");

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private List<DurableChange> change(int n) {
    return List.of(new Removed(new Subject(Kind.INSTANCE, db, "127.0.0." + n + "#5432#DEFAULT")));
  }

  @AfterEach
  void close() throws InterruptedException {
    writer.close();
  }

  @Test
  void eachChangeOfAnEntryKeepsTheTraceOfTheCommandThatMadeItAndAnUntracedEntryNone() throws Exception {
    TraceContext traced = new TraceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true);
    writer.start();
    writer.append(0, change(0), 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> entries.size() == 1);
    writer.append(1, change(1), 2, traced);
    writer.append(2, change(2), 3);
    firstWriteReturns.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> entries.size() == 2);

    assertThat(entries.get(0).changes()).extracting(ChangeCodec.StoredChange::traceparent).containsOnlyNulls();
    assertThat(entries.get(1).changes()).extracting(ChangeCodec.StoredChange::trace).containsExactly(traced, null);
    assertThat(entries.get(1).changes().get(0).traceparent())
        .isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    commits.forEach(commit -> commit.complete(null));
  }

  @Test
  void changesWaitingWhileAnEntryIsWrittenShareTheNextEntryAndCompleteInOrder() throws Exception {
    writer.start();
    CompletableFuture<Void> first = writer.append(0, change(0), 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> entries.size() == 1);
    List<CompletableFuture<Void>> waiting = new ArrayList<>();
    List<Integer> completed = new CopyOnWriteArrayList<>();
    for (int i = 1; i <= 50; i++) {
      int n = i;
      waiting.add(writer.append(0, change(i), 1 + i).thenRun(() -> completed.add(n)));
    }
    firstWriteReturns.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> entries.size() == 2);

    assertThat(entries.get(1).changes()).as("the 50 commands that waited, in one entry").hasSize(50);
    assertThat(entries.get(1).revision()).isEqualTo(51);
    assertThat(writer.notDurable()).isEqualTo(51);
    assertThat(writer.barrier()).isNotDone();

    commits.get(0).complete(null);
    first.get(5, TimeUnit.SECONDS);
    commits.get(1).complete(null);
    CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
    assertThat(completed).hasSize(50).isSorted();
    assertThat(writer.barrier()).isCompleted();
    assertThat(writer.notDurable()).isZero();
  }

  @Test
  void aFailedWriteFailsEveryCommandInItsEntryAndTheWriterGoesOn() throws Exception {
    firstWriteReturns.countDown();
    writer.start();
    CompletableFuture<Void> failing = writer.append(0, change(1), 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> entries.size() == 1);
    commits.get(0).completeExceptionally(new IOException("disk full"));

    assertThat(failing).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
        .withRootCauseInstanceOf(IOException.class);

    CompletableFuture<Void> next = writer.append(0, change(2), 2);
    await().atMost(Duration.ofSeconds(5)).until(() -> entries.size() == 2);
    commits.get(1).complete(null);
    next.get(5, TimeUnit.SECONDS);
  }

  @Test
  void afterCloseAppendsFailAsStorageUnavailable() throws Exception {
    firstWriteReturns.countDown();
    writer.start();
    writer.close();

    assertThat(writer.append(0, change(1), 1)).failsWithin(Duration.ofSeconds(1))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(StorageUnavailableException.class)
        .withMessageContaining("stopping");
  }
}
