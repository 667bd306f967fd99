package io.reactiveregistry.server.core;

import java.util.PriorityQueue;

/**
 * Heartbeat deadlines, earliest first. Each instance has at most one live entry, at
 * {@link RegisteredInstance#scheduledAt}. A heartbeat only moves the instance's deadline later, so
 * it leaves the entry alone: when the entry comes due the registry re-reads the real deadline and
 * pushes a new entry. Superseded entries are recognised and skipped. Nothing scans all instances.
 */
final class ExpiryQueue {
  private record Entry(long at, RegisteredInstance instance) {}

  private final PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));

  /** Makes sure the instance is looked at no later than {@code at}. */
  void schedule(RegisteredInstance instance, long at) {
    if (instance.scheduledAt != 0 && instance.scheduledAt <= at) {
      return;
    }
    instance.scheduledAt = at;
    queue.add(new Entry(at, instance));
  }

  /** The next live instance whose entry is due at {@code now}, removed from the queue; or null. */
  RegisteredInstance pollDue(long now) {
    Entry head;
    while ((head = queue.peek()) != null && head.at <= now) {
      queue.poll();
      RegisteredInstance instance = head.instance;
      if (!instance.removed && instance.scheduledAt == head.at) {
        instance.scheduledAt = 0;
        return instance;
      }
    }
    return null;
  }
}
