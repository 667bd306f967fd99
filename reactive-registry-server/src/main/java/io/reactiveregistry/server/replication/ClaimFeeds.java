package io.reactiveregistry.server.replication;

import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * This node's side of replication: every open {@code cluster.replicate} stream, fed with the
 * changes to this node's claims as the runtime makes them, and with a digest every anti-entropy
 * interval so that each peer can check what it holds.
 */
public final class ClaimFeeds {
  private final String self;
  /** Which run of this node the streams come from: peers see a restart as a new epoch. */
  private final long epoch;
  private final RegistryRuntime runtime;
  private final Scheduler drainer;
  private final Set<ClaimFeed> feeds = ConcurrentHashMap.newKeySet();
  /** Set once, when the member stops: no change, digest or new stream goes out after it. */
  private volatile boolean frozen;

  public ClaimFeeds(String self, long epoch, RegistryRuntime runtime, Scheduler drainer) {
    this.self = self;
    this.epoch = epoch;
    this.runtime = runtime;
    this.drainer = drainer;
    runtime.addClaimListener(changes -> {
      if (frozen) {
        return;
      }
      for (ClaimFeed feed : feeds) {
        feed.changes(changes);
      }
    });
  }

  /**
   * A peer's stream: the snapshot of this node's claims, taken under the runtime's monitor together
   * with the stream's registration, so that no change falls between the snapshot and the changes.
   */
  public Flux<byte[]> open(String peer) {
    if (frozen) {
      return Flux.error(new IllegalStateException("member " + self + " is stopping: its claims are no longer sent"));
    }
    return Flux.create(sink -> {
      ClaimFeed feed = runtime.read(reads -> {
        ClaimFeed opened = new ClaimFeed(peer, self, epoch, reads.claims(), drainer);
        feeds.add(opened);
        return opened;
      });
      sink.onDispose(() -> feeds.remove(feed));
      feed.attach(sink);
    });
  }

  /**
   * Sends each stream a digest of this node's claims every {@code interval}, with the clients it
   * holds ({@code clients}) and its zone.
   */
  public Disposable startDigests(Duration interval, Scheduler timer, Supplier<ClientLoad> clients,
      Supplier<@Nullable String> zone) {
    return timer.schedulePeriodically(() -> runtime.read(reads -> {
      if (!frozen && !feeds.isEmpty()) {
        var digest = reads.claimsDigest();
        ClientLoad held = clients.get();
        String mine = zone.get();
        feeds.forEach(feed -> feed.digest(digest, held, mine));
      }
      return null;
    }), interval.toMillis(), interval.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /**
   * No change made from now on is sent, nor a digest, nor a new stream's snapshot; what is already
   * queued still goes out. A stopping member freezes its claims once its clients have moved, before
   * it closes the connections of those that stayed: their instances are then released here only,
   * and each peer, seeing the stream end, keeps them as copies for the grace period, as it would
   * after a crash, so that a client reconnecting elsewhere within it takes them over without any
   * view losing them. (Sent, the releases would remove them from every view at once, and the
   * client's registration elsewhere would add them back: a flap each subscriber sees.) A digest
   * would now make peers repair with a snapshot lacking them, hence none either.
   */
  public void freeze() {
    // Under the runtime's monitor, which offers the changes: none is half-forwarded.
    runtime.read(reads -> {
      frozen = true;
      return null;
    });
  }

  /** Changes waiting to be sent to a peer (the most over its open streams). */
  public int waitingChanges(String peer) {
    int waiting = 0;
    for (ClaimFeed feed : feeds) {
      if (feed.peer.equals(peer)) {
        waiting = Math.max(waiting, feed.waitingChanges());
      }
    }
    return waiting;
  }

  public long epoch() {
    return epoch;
  }
}
