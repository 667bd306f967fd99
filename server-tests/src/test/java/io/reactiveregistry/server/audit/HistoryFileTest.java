package io.reactiveregistry.server.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.TraceEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit trail appended to a JSON-lines file: every event a line, rotated by size, the oldest deleted. */
class HistoryFileTest {
  @TempDir
  Path dir;

  private static TraceEvent event(long revision) {
    return new TraceEvent(1_000L + revision, revision, "public", "DEFAULT_GROUP", "orders", "127.0.0.5#8080#DEFAULT",
        "REGISTER", "app@127.0.0.1:1", null, "n1", null, null, null, null);
  }

  private static List<Long> revisions(Path file) throws Exception {
    List<Long> revisions = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      revisions.add(JsonCodec.json().decode(line.getBytes(), TraceEvent.class).revision());
    }
    return revisions;
  }

  @Test
  void everyEventIsALineOfTheTracesJsonAndWhatIsQueuedIsWrittenAtClose() throws Exception {
    Path path = dir.resolve("logs/audit.jsonl");
    HistoryFile file = new HistoryFile(path, 1 << 20, 5);
    for (long revision = 1; revision <= 1_000; revision++) {
      file.offer(event(revision));
    }
    file.dispose();

    List<Long> written = revisions(path);
    assertThat(written).hasSize(1_000).isSorted().startsWith(1L).endsWith(1_000L);
    assertThat(file.dropped()).isZero();
  }

  @Test
  void pastItsSizeTheFileIsRotatedAndOnlyTheNewestRotationsAreKept() throws Exception {
    Path path = dir.resolve("audit.jsonl");
    int line = JsonCodec.json().encode(event(100)).length + 1;
    HistoryFile file = new HistoryFile(path, 10L * line, 2); // ten lines a file
    for (long revision = 100; revision < 150; revision++) {
      file.offer(event(revision));
    }
    file.dispose();

    assertThat(revisions(path)).containsExactly(140L, 141L, 142L, 143L, 144L, 145L, 146L, 147L, 148L, 149L);
    assertThat(revisions(dir.resolve("audit.jsonl.1"))).startsWith(130L).endsWith(139L);
    assertThat(revisions(dir.resolve("audit.jsonl.2"))).startsWith(120L).endsWith(129L);
    assertThat(dir.resolve("audit.jsonl.3")).doesNotExist();
  }

  @Test
  void aRestartAppendsToTheFileItFinds() throws Exception {
    Path path = dir.resolve("audit.jsonl");
    HistoryFile first = new HistoryFile(path, 1 << 20, 5);
    first.offer(event(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> Files.size(path) > 0); // written while running, too
    first.dispose();
    HistoryFile second = new HistoryFile(path, 1 << 20, 5);
    second.offer(event(2));
    second.dispose();

    assertThat(revisions(path)).containsExactly(1L, 2L);
  }
}
