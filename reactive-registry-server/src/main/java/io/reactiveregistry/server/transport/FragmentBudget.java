package io.reactiveregistry.server.transport;

import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of unfinished fragmented requests the whole server holds, across every connection.
 * Each connection's {@link InboundFrameFilter} reserves here what it lets through to be
 * reassembled and releases it when the request is whole, cancelled or the connection closes.
 * When the budget is full, the connection holding the most is the one asked to go: many
 * connections, each under its own limit, cannot together take the memory every client needs.
 */
final class FragmentBudget {
  private final long limitBytes;
  private final AtomicLong used = new AtomicLong();
  private final Set<InboundFrameFilter> holders = ConcurrentHashMap.newKeySet();

  FragmentBudget(long limitBytes) {
    this.limitBytes = limitBytes;
  }

  long limitBytes() {
    return limitBytes;
  }

  long usedBytes() {
    return used.get();
  }

  boolean reserve(InboundFrameFilter holder, long bytes) {
    long now;
    do {
      now = used.get();
      if (now + bytes > limitBytes) {
        return false;
      }
    } while (!used.compareAndSet(now, now + bytes));
    holders.add(holder);
    return true;
  }

  void release(InboundFrameFilter holder, long bytes, boolean holdsNothingMore) {
    used.addAndGet(-bytes);
    if (holdsNothingMore) {
      holders.remove(holder);
    }
  }

  /** The connection holding the most unfinished bytes, unless that is {@code asking} itself. */
  Optional<InboundFrameFilter> largestHolderOtherThan(InboundFrameFilter asking) {
    return holders.stream().max(Comparator.comparingLong(InboundFrameFilter::heldBytes))
        .filter(largest -> largest != asking && largest.heldBytes() > asking.heldBytes());
  }
}
