package io.reactiveregistry.server;

import io.reactiveregistry.protocol.message.MoveRequest;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.transport.RSocketEndpoint;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * Spreads client connections over the members. Each member compares the client connections it
 * holds with what its peers report with their digests (every anti-entropy interval); while it
 * holds more than its share (the average over the members that are up) by more than the
 * tolerance, it asks some of its clients to move to the members below their share, the newest
 * connections first, at most a round's worth at a time. A round decides only on counts every peer
 * reported after this member's previous move, so that clients on their way are not counted
 * twice; the members meet within a few rounds without a stampede. The move is the same as at a
 * stop ({@code connection.move}): nothing is released on the way.
 */
final class ConnectionRebalancer {
  private static final Logger log = LoggerFactory.getLogger(ConnectionRebalancer.class);
  /** Never move for a difference this small: two or three connections either way is even. */
  static final int SLACK = 2;

  private final String self;
  private final RSocketEndpoint endpoint;
  private final Replication replication;
  private final int perRound;
  private final double tolerance;
  private long lastMoveNanos = Long.MIN_VALUE;

  ConnectionRebalancer(String self, RSocketEndpoint endpoint, Replication replication, int perRound,
      double tolerance) {
    this.self = self;
    this.endpoint = endpoint;
    this.replication = replication;
    this.perRound = perRound;
    this.tolerance = tolerance;
  }

  /** Runs a round every {@code period} until disposed. */
  Disposable start(Duration period, Scheduler scheduler) {
    return Flux.interval(period, period, scheduler)
        .onBackpressureDrop()
        .subscribe(tick -> round(), error -> log.error("connection rebalancing stopped", error));
  }

  /** One round: how many clients were asked to move. */
  synchronized int round() {
    if (perRound == 0) {
      return 0;
    }
    List<Replication.PeerLoad> peers = replication.peerLoads().stream()
        .filter(peer -> peer.connections() >= 0) // a negative count: the peer is stopping
        .toList();
    if (peers.isEmpty() || peers.stream().anyMatch(peer -> peer.reportedAtNanos() < lastMoveNanos)) {
      return 0;
    }
    int mine = endpoint.movableConnections();
    int excess = excess(mine, peers.stream().mapToInt(Replication.PeerLoad::connections).toArray(), tolerance);
    if (excess == 0) {
      return 0;
    }
    int total = mine + peers.stream().mapToInt(Replication.PeerLoad::connections).sum();
    double share = (double) total / (peers.size() + 1);
    List<String> destinations = peers.stream()
        .filter(peer -> peer.connections() < share)
        .sorted(Comparator.comparingInt(Replication.PeerLoad::connections))
        .map(Replication.PeerLoad::address)
        .toList();
    if (destinations.isEmpty()) {
      return 0;
    }
    int asked = endpoint.moveClients(Math.min(perRound, excess), new MoveRequest("rebalancing: member " + self
        + " holds " + mine + " of " + total + " client connections", destinations));
    if (asked > 0) {
      lastMoveNanos = System.nanoTime();
      log.info("rebalancing: holds {} of {} client connections over {} members; asked {} to move to {}", mine,
          total, peers.size() + 1, asked, destinations);
    }
    return asked;
  }

  /**
   * How many of {@code mine} should move for this member to hold its share of all the members'
   * connections: none while it is within {@code tolerance} of its share or {@link #SLACK} of it.
   */
  static int excess(int mine, int[] peers, double tolerance) {
    long total = mine;
    for (int peer : peers) {
      total += peer;
    }
    double share = (double) total / (peers.length + 1);
    if (mine <= share * (1 + tolerance) || mine - share <= SLACK) {
      return 0;
    }
    return (int) Math.floor(mine - share);
  }
}
