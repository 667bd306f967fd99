package io.reactiveregistry.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.DurableChange.Kind;
import io.reactiveregistry.server.core.DurableChange.Removed;
import io.reactiveregistry.server.core.DurableChange.Subject;
import io.reactiveregistry.server.core.ServiceKey;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which of this node's writes are in flight, settled by the log or given up. */
class PendingWritesTest {
  private final PendingWrites pending = new PendingWrites();
  private final Subject a = new Subject(Kind.INSTANCE, ServiceKey.of(null, null, "db"), "a");
  private final Subject b = new Subject(Kind.INSTANCE, ServiceKey.of(null, null, "db"), "b");

  private static List<DurableChange> touching(Subject... subjects) {
    return java.util.Arrays.stream(subjects).map(s -> (DurableChange) new Removed(s)).toList();
  }

  @Test
  void aCommittedEntrySettlesItsWritesAndTheirSubjects() {
    long first = pending.add(touching(a));
    long second = pending.add(touching(a, b));
    assertThat(pending.inFlight(a)).isTrue();

    assertThat(pending.committed(first, first)).isTrue();
    assertThat(pending.inFlight(a)).as("the second write still touches it").isTrue();
    assertThat(pending.committed(second, second)).isTrue();
    assertThat(pending.inFlight(a)).isFalse();
    assertThat(pending.inFlight(b)).isFalse();
    assertThat(pending.size()).isZero();
  }

  @Test
  void aFailedWriteReturnsTheSubjectsNoOtherWriteHolds() {
    long first = pending.add(touching(a, b));
    pending.add(touching(b));

    assertThat(pending.failed(first)).containsExactly(a);
    assertThat(pending.failed(first)).as("settled once").isEmpty();
  }

  @Test
  void anEntryCommittedAfterItsWritesWereGivenUpIsNotOurs() {
    long id = pending.add(touching(a));
    pending.failed(id);
    assertThat(pending.committed(id, id)).as("to be applied like another member's").isFalse();
  }
}
