package io.reactiveregistry.server.runtime;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.DurableChange.Subject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * This node's durable writes that the log has not yet committed, and the subjects they touch.
 *
 * <p>In a cluster a node applies its own durable changes at once (so a read after a write on the
 * same connection sees it) and every other member's when the log commits them. A subject with a
 * write of ours still in flight keeps our value: every committed entry applied before ours
 * precedes it in the log, so ours supersedes it. When our write commits, it is already applied;
 * when it fails, the subject is put back to what the log holds. Not thread-safe: used under the
 * runtime's monitor.
 */
final class PendingWrites {
  private final NavigableMap<Long, List<Subject>> byWrite = new TreeMap<>();
  private final Map<Subject, Integer> writesPerSubject = new HashMap<>();
  private long lastWriteId;

  /** Records a write of these changes; returns its id (increasing). */
  long add(List<DurableChange> changes) {
    long id = ++lastWriteId;
    List<Subject> subjects = new ArrayList<>(changes.size());
    for (DurableChange change : changes) {
      subjects.add(change.subject());
      writesPerSubject.merge(change.subject(), 1, Integer::sum);
    }
    byWrite.put(id, subjects);
    return id;
  }

  /** True while a write of ours to the subject is in flight. */
  boolean inFlight(Subject subject) {
    return writesPerSubject.containsKey(subject);
  }

  /**
   * Our entry holding writes {@code first} to {@code last} was committed. Returns false when none
   * of them was still in flight: they had been given up (refused after a timeout) and put back, so
   * the entry must now be applied like another member's.
   */
  boolean committed(long first, long last) {
    NavigableMap<Long, List<Subject>> settled = byWrite.subMap(first, true, last, true);
    if (settled.isEmpty()) {
      return false;
    }
    for (List<Subject> subjects : List.copyOf(settled.values())) {
      release(subjects);
    }
    settled.clear();
    return true;
  }

  /**
   * The write failed. Returns the subjects with no other write of ours in flight, to be put back to
   * what the log holds; empty when the write had already been settled.
   */
  List<Subject> failed(long writeId) {
    List<Subject> subjects = byWrite.remove(writeId);
    if (subjects == null) {
      return List.of();
    }
    release(subjects);
    List<Subject> settled = new ArrayList<>();
    for (Subject subject : subjects) {
      if (!writesPerSubject.containsKey(subject) && !settled.contains(subject)) {
        settled.add(subject);
      }
    }
    return settled;
  }

  int size() {
    return byWrite.size();
  }

  private void release(List<Subject> subjects) {
    for (Subject subject : subjects) {
      writesPerSubject.computeIfPresent(subject, (s, n) -> n == 1 ? null : n - 1);
    }
  }
}
