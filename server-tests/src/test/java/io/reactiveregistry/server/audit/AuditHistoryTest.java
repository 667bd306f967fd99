package io.reactiveregistry.server.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceHistory;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The kept audit trail: bounded by count and age, queried by each field, newest kept when a limit cuts. */
class AuditHistoryTest {
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());

  private static TraceEvent event(long time, long revision, String service, String instance, String cause,
      String principal) {
    return new TraceEvent(time, revision, "public", "DEFAULT_GROUP", service, instance, cause, "app@127.0.0.1:1",
        principal, "n1", null, null, null, null);
  }

  private static AuditHistory.Query all(int limit) {
    return new AuditHistory.Query(null, null, null, null, null, null, null, null, limit);
  }

  @Test
  void keepsTheLastEventsUpToItsSize() {
    AuditHistory history = new AuditHistory(new AuditHistory.Settings(3, Duration.ofHours(1)), clock);
    for (long revision = 1; revision <= 5; revision++) {
      history.add(event(now.get(), revision, "orders", "i" + revision, "REGISTER", null));
    }

    TraceHistory kept = history.query(all(100));

    assertThat(kept.events()).extracting(TraceEvent::revision).containsExactly(3L, 4L, 5L);
    assertThat(kept.truncated()).isFalse();
    assertThat(history.size()).isEqualTo(3);
  }

  @Test
  void dropsWhatIsOlderThanItsAgeAtEachChangeAndEachQuery() {
    AuditHistory history = new AuditHistory(new AuditHistory.Settings(100, Duration.ofMinutes(10)), clock);
    history.add(event(now.get(), 1, "orders", "a", "REGISTER", null));
    now.addAndGet(Duration.ofMinutes(6).toMillis());
    history.add(event(now.get(), 2, "orders", "b", "REGISTER", null));
    now.addAndGet(Duration.ofMinutes(5).toMillis()); // the first is 11 minutes old now

    TraceHistory kept = history.query(all(100));

    assertThat(kept.events()).extracting(TraceEvent::revision).containsExactly(2L);
    assertThat(kept.keptSince()).isEqualTo(now.get() - Duration.ofMinutes(5).toMillis());
    now.addAndGet(Duration.ofMinutes(6).toMillis());
    assertThat(history.query(all(100)).events()).isEmpty();
    assertThat(history.query(all(100)).keptSince()).isNull();
  }

  @Test
  void answersWhatMatchesEveryFieldGiven() {
    AuditHistory history = new AuditHistory(AuditHistory.Settings.DEFAULTS, clock);
    history.add(event(now.get(), 1, "orders", "a", "REGISTER", "ci"));
    history.add(event(now.get() + 10, 2, "billing", "b", "REGISTER", "ops"));
    history.add(event(now.get() + 20, 3, "orders", "a", "CONNECTION_CLOSED", null));
    history.add(event(now.get() + 30, 4, "orders", "c", "OVERRIDE", "ops"));
    now.addAndGet(100);

    assertThat(revisions(history, new AuditHistory.Query(null, null, "orders", null, null, null, null, null, 10)))
        .containsExactly(1L, 3L, 4L);
    assertThat(revisions(history, new AuditHistory.Query(null, null, null, "a", null, null, null, null, 10)))
        .containsExactly(1L, 3L);
    assertThat(revisions(history, new AuditHistory.Query(null, null, null, null, "CONNECTION_CLOSED", null, null,
        null, 10))).containsExactly(3L);
    assertThat(revisions(history, new AuditHistory.Query(null, null, null, null, null, "ops", null, null, 10)))
        .containsExactly(2L, 4L);
    long start = now.get() - 100;
    assertThat(revisions(history, new AuditHistory.Query(null, null, null, null, null, null, start + 10, start + 30,
        10))).containsExactly(2L, 3L);
    assertThat(revisions(history, new AuditHistory.Query("team-a", null, null, null, null, null, null, null, 10)))
        .isEmpty();
  }

  @Test
  void aLimitKeepsTheNewestAndSaysMoreMatched() {
    AuditHistory history = new AuditHistory(AuditHistory.Settings.DEFAULTS, clock);
    for (long revision = 1; revision <= 10; revision++) {
      history.add(event(now.get(), revision, "orders", "i" + revision, "REGISTER", null));
    }

    TraceHistory answer = history.query(all(4));

    assertThat(answer.events()).extracting(TraceEvent::revision).containsExactly(7L, 8L, 9L, 10L);
    assertThat(answer.truncated()).isTrue();
  }

  @Test
  void keepsNothingWhenItsSizeIsZero() {
    AuditHistory history = new AuditHistory(new AuditHistory.Settings(0, Duration.ofHours(1)), clock);
    history.add(event(now.get(), 1, "orders", "a", "REGISTER", null));

    assertThat(history.query(all(10)).events()).isEmpty();
  }

  private static java.util.List<Long> revisions(AuditHistory history, AuditHistory.Query query) {
    return history.query(query).events().stream().map(TraceEvent::revision).toList();
  }
}
