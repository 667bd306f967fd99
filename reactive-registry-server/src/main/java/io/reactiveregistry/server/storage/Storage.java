package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Where the server keeps what is durable, as the server's composition sees it: a Raft log on
 * disk ({@link RatisStore}, a group of one member for a single server) or, with
 * {@code --in-memory}, nothing at all ({@link #inMemory()}). Either way the parts exist and answer,
 * so that the server is built and stopped the same way with both.
 */
public interface Storage extends DurableStore, AutoCloseable {
  /**
   * What was replayed: the latest value of every durable subject, the revision after them, and
   * how long opening and replaying took.
   */
  record Restored(List<DurableChange> values, long revision, Duration took) {}

  /** Completes with what storage holds once this node may serve it (it leads, or has caught up). */
  Mono<Restored> restored(Duration timeout);

  /**
   * Hands the durable state as it is now to {@code restore}, then tells {@code follower} of every
   * entry applied after it, in log order.
   */
  void follow(CommittedEntries follower, BiConsumer<List<DurableChange>, Long> restore);

  /** Whether this node is the one that acts for the cluster (checks, cleanups): always on a single node. */
  boolean leading();

  /**
   * Before a planned stop: a cluster's leader hands leadership to a member in step, so that the
   * stop costs no election (a pause of a few milliseconds instead of the election timeout).
   * Only a member in {@code up} (known to be up by other means) is chosen. Blocking, at most about
   * {@code timeout}. The new leader's id; null when this node did not lead, is alone, or no member
   * could take over in time (it then stops as before, and the others elect).
   */
  default @Nullable String handOffLeadership(Duration timeout, Collection<String> up) {
    return null;
  }

  /**
   * A peer of this cluster member is up (its replication stream is); {@code restarted} when it
   * runs anew, its old connections closed.
   */
  default void peerConnected(String peer, boolean restarted) {}

  /** What failed beyond repair without a restart; null while nothing has. */
  @Nullable String failureDescription();

  /** For {@code server.info}: {@code OK}, {@code IN_MEMORY}, or {@code FAILED: ...}. */
  default String state() {
    String failed = failureDescription();
    return failed == null ? "OK" : "FAILED: " + failed;
  }

  /** Commands whose changes are not yet durable. */
  int notDurable();

  /** Told, for each command made durable, how long it waited from being queued to its commit. */
  void onDurable(LongConsumer latencyNanos);

  /** Writes what is queued and lets go of the disk. Blocking. */
  @Override
  void close() throws IOException;

  /** Nothing written: every change counts as durable at once, and nothing survives a restart. */
  static Storage inMemory() {
    return new InMemoryStorage();
  }
}
