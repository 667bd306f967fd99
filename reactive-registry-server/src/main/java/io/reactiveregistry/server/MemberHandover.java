package io.reactiveregistry.server;

import io.reactiveregistry.protocol.message.MoveRequest;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.cluster.Membership;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.storage.Storage;
import io.reactiveregistry.server.transport.RSocketEndpoint;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * What a cluster member does when told to stop, before it closes anything, so that neither the
 * cluster nor its clients notice: a leader hands leadership to a member in step (no election),
 * then every client that honours {@code connection.move} is asked to move to the members that are
 * up; each registers again there and closes its connection here itself, so that its instances are
 * taken over (the later registration wins everywhere) instead of released. The stop goes on once
 * every such client has left, or after the move timeout. Then the member's claims freeze: the
 * clients still here (those that do not honour the request, or found no member to move to) are
 * closed and reconnect on their own, and their instances, released here only, stay with the other
 * members for the replication grace, as after a crash, so that they are taken over where the
 * clients come back.
 */
final class MemberHandover {
  private static final Logger log = LoggerFactory.getLogger(MemberHandover.class);
  /** Ratis waits this long for the chosen member to catch up and win its election. */
  private static final Duration LEADERSHIP_TRANSFER_TIMEOUT = Duration.ofSeconds(3);

  private final Membership membership;
  private final Storage storage;
  private final RSocketEndpoint endpoint;
  private final Replication replication;
  private final Duration moveTimeout;

  MemberHandover(Membership membership, Storage storage, RSocketEndpoint endpoint, Replication replication,
      Duration moveTimeout) {
    this.membership = membership;
    this.storage = storage;
    this.endpoint = endpoint;
    this.replication = replication;
    this.moveTimeout = moveTimeout;
  }

  /** Hands over leadership and clients; completes when done (nothing to do on a single server). */
  Mono<Void> run() {
    ClusterConfig cluster = membership.current();
    if (!cluster.clustered()) {
      return Mono.empty();
    }
    return Mono.fromRunnable(() -> storage.handOffLeadership(LEADERSHIP_TRANSFER_TIMEOUT,
            replication.connectedPeers()))
        .subscribeOn(Schedulers.boundedElastic()) // Ratis's admin call blocks
        .then(Mono.defer(this::moveClients))
        // Those that stayed are closed next: peers keep their instances for the grace, so that a
        // client reconnecting elsewhere takes them over without any view losing them.
        .then(Mono.fromRunnable(replication::freezeClaims));
  }

  private Mono<Void> moveClients() {
    List<String> up = replication.connectedPeers();
    ClusterConfig cluster = membership.current();
    List<String> destinations = cluster.members().stream()
        .filter(member -> !member.id().equals(cluster.nodeId()) && (up.isEmpty() || up.contains(member.id())))
        .map(ClusterConfig.Member::address)
        .toList();
    long start = System.nanoTime();
    return endpoint.moveClients(new MoveRequest("member " + cluster.nodeId() + " is stopping", destinations),
            moveTimeout)
        .doOnNext(stayed -> {
          long took = (System.nanoTime() - start) / 1_000_000;
          if (stayed == 0) {
            log.info("clients moved to the other members in {} ms", took);
          } else {
            log.warn("{} client(s) asked to move had not left after {} ms; their connections are closed, and "
                + "their instances stay with the other members for the replication grace", stayed, took);
          }
        })
        .then();
  }
}
