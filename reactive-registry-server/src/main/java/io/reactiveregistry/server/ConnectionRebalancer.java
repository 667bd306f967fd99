package io.reactiveregistry.server;

import io.reactiveregistry.protocol.message.MoveRequest;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.replication.Replication;
import io.reactiveregistry.server.transport.RSocketEndpoint;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * Spreads client connections over the members. Each member compares the client connections it
 * holds with what its peers report with their digests (every anti-entropy interval); while it
 * holds more than its share (the average over the members that are up) by more than the
 * tolerance, or more than its share while another member is short of its own by more than the
 * tolerance, it asks some of its clients to move to the members below their share, each member
 * named to as many clients as it lacks, the newest connections first, at most a round's worth at a
 * time. A round decides only on counts every peer reported after this member's previous move, so
 * that clients on their way are not counted twice; the members meet within a few rounds without a
 * stampede. The move is the same as at a stop ({@code connection.move}): nothing is released on the
 * way.
 *
 * <p>Nacos's clients are spread the same way among themselves, over the members with a Nacos
 * door: the member holding more than its share tells its newest ones to connect to a member below
 * its share ({@code ConnectResetRequest} naming it). A Nacos client closes its connection here
 * before it registers again there, so what the connection owns stays here until the other member
 * has taken it over ({@link NacosDoor#moveClients}).
 *
 * <p>Zones: members are compared only with the members of their own zone (members without one with
 * each other), so clients are spread within a zone and never pushed out of it; and a client that
 * gave a zone other than this member's (it came here when its zone's members were down) is asked,
 * first, to move back to the members of its zone that are up.
 */
final class ConnectionRebalancer {
  private static final Logger log = LoggerFactory.getLogger(ConnectionRebalancer.class);
  /** Never move for a difference this small: two or three connections either way is even. */
  static final int SLACK = 2;

  private final String self;
  private final RSocketEndpoint endpoint;
  private final @Nullable NacosDoor nacos;
  private final Replication replication;
  private final int perRound;
  private final double tolerance;
  private final @Nullable String zone;
  private long lastMoveNanos = Long.MIN_VALUE;
  private long lastNacosMoveNanos = Long.MIN_VALUE;

  /** With the member's Nacos door ({@code nacos}; null when it has none, or none clients can follow). */
  ConnectionRebalancer(String self, RSocketEndpoint endpoint, @Nullable NacosDoor nacos, Replication replication,
      int perRound, double tolerance, @Nullable String zone) {
    this.self = self;
    this.nacos = nacos;
    this.zone = zone;
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

  /** The peers that have reported their clients and are not stopping (those report a negative count). */
  static List<Replication.PeerLoad> up(Replication replication) {
    return replication.peerLoads().stream().filter(peer -> peer.connections() >= 0).toList();
  }

  /** Of {@code peers}, those whose Nacos door a Nacos client can be sent to. */
  static List<Replication.PeerLoad> nacosDoors(List<Replication.PeerLoad> peers) {
    return peers.stream().filter(peer -> peer.nacosHost() != null).toList();
  }

  /** One round: how many clients were asked to move. */
  synchronized int round() {
    if (perRound == 0) {
      return 0;
    }
    List<Replication.PeerLoad> up = up(replication);
    List<Replication.PeerLoad> sameZone = up.stream().filter(peer -> Objects.equals(peer.zone(), zone)).toList();
    int asked = nacosRound(sameZone);
    int home = homecoming(up);
    if (home > 0) {
      lastMoveNanos = System.nanoTime();
      return asked + home;
    }
    if (!reportedSince(sameZone, lastMoveNanos)) {
      return asked;
    }
    int[] theirs = sameZone.stream().mapToInt(Replication.PeerLoad::connections).toArray();
    int moved = spread("client connections", endpoint.movableConnections(), sameZone, theirs,
        (count, to, reason) -> endpoint.moveClients(count, new MoveRequest(reason, List.of(to.address()))));
    if (moved > 0) {
      lastMoveNanos = System.nanoTime();
    }
    return asked + moved;
  }

  /** The same for Nacos's clients, over the members with a Nacos door they can be sent to. */
  private int nacosRound(List<Replication.PeerLoad> sameZone) {
    if (nacos == null) {
      return 0;
    }
    List<Replication.PeerLoad> doors = nacosDoors(sameZone);
    if (!reportedSince(doors, lastNacosMoveNanos)) {
      return 0;
    }
    int[] theirs = doors.stream().mapToInt(Replication.PeerLoad::nacosConnections).toArray();
    NacosDoor door = nacos;
    int moved = spread("Nacos connections", door.movableConnections(), doors, theirs,
        (count, to, reason) -> door.moveClients(count, Objects.requireNonNull(to.nacosHost()), to.nacosPort()));
    if (moved > 0) {
      lastNacosMoveNanos = System.nanoTime();
    }
    return moved;
  }

  /**
   * Whether every peer has reported since this member last asked clients to move: a round decided
   * on older counts would count the clients on their way twice.
   */
  private static boolean reportedSince(List<Replication.PeerLoad> peers, long lastMove) {
    return !peers.isEmpty() && peers.stream().allMatch(peer -> peer.reportedAtNanos() >= lastMove);
  }

  /** Asks {@code count} clients to move to the member {@code to}, for {@code reason}: how many were asked. */
  private interface Mover {
    int move(int count, Replication.PeerLoad to, String reason);
  }

  /**
   * One kind of clients brought towards an even spread: with {@code mine} here and {@code theirs}
   * on each of {@code peers}, asks this member's excess, at most a round's worth, to move to the
   * members below their share, each named to as many as it lacks: how many were asked.
   */
  private int spread(String kind, int mine, List<Replication.PeerLoad> peers, int[] theirs, Mover mover) {
    int excess = excess(mine, theirs, tolerance);
    if (excess == 0) {
      return 0;
    }
    int total = mine + Arrays.stream(theirs).sum();
    double share = (double) total / (peers.size() + 1);
    List<Integer> below = IntStream.range(0, peers.size())
        .filter(i -> theirs[i] < share)
        .boxed()
        .sorted(Comparator.comparingInt(i -> theirs[i]))
        .toList();
    // Each member below its share is named to the clients it is sent: clients told "any of these"
    // chose at random, and a random split could leave one member crowded at the tolerance's edge
    // and another short of its share for good (12, 11 and 7 of 30), which no later round corrects.
    int[] sent = split(Math.min(perRound, excess), below.stream().mapToDouble(i -> share - theirs[i]).toArray());
    int asked = 0;
    String reason = "rebalancing: member " + self + " holds " + mine + " of " + total + " " + kind;
    for (int i = 0; i < below.size(); i++) {
      if (sent[i] > 0) {
        asked += mover.move(sent[i], peers.get(below.get(i)), reason);
      }
    }
    if (asked > 0) {
      log.info("rebalancing: holds {} of {} {} over {} members; asked {} to move to {}", mine, total, kind,
          peers.size() + 1, asked, below.stream().map(i -> peers.get(i).node()).toList());
    }
    return asked;
  }

  /**
   * How many of {@code budget} clients to send to each member, given what each {@code lacks} of its
   * share: one at a time to the member that lacks the most after those already sent. Members that
   * lack as much get as many (give or take one), so a round decided on counts that lag behind the
   * clients still on their way overshoots evenly rather than onto one member.
   */
  static int[] split(int budget, double[] lacks) {
    int[] sent = new int[lacks.length];
    for (int given = 0; given < budget; given++) {
      int most = -1;
      for (int i = 0; i < lacks.length; i++) {
        if (lacks[i] - sent[i] > 0 && (most < 0 || lacks[i] - sent[i] > lacks[most] - sent[most])) {
          most = i;
        }
      }
      if (most < 0) {
        break;
      }
      sent[most]++;
    }
    return sent;
  }

  /** Clients of another zone, asked to move to the members of their zone that are up: how many. */
  private int homecoming(List<Replication.PeerLoad> up) {
    int asked = 0;
    for (String theirs : endpoint.clientZones()) {
      List<String> home = up.stream().filter(peer -> theirs.equals(peer.zone())).map(Replication.PeerLoad::address)
          .toList();
      if (theirs.equals(zone) || home.isEmpty() || asked >= perRound) {
        continue;
      }
      int moved = endpoint.moveClients(perRound - asked, new MoveRequest("zone: member " + self + " is in zone "
          + zone + ", and members of the client's zone " + theirs + " are up", home), theirs);
      if (moved > 0) {
        log.info("zones: asked {} client(s) of zone {} to move back to {}", moved, theirs, home);
      }
      asked += moved;
    }
    return asked;
  }

  /**
   * How many of {@code mine} should move for this member to hold its share of all the members'
   * connections: some once it is crowded (above its share by more than {@code tolerance} and
   * {@link #SLACK}), or once it is above its share while another member is short of its own by as
   * much. The second rule is what makes the members meet from both sides: two members each two
   * above a share of 10 are within the slack, but they leave the third six short (12, 12 and 6),
   * and only a rule that looks at the short one moves anybody.
   */
  static int excess(int mine, int[] peers, double tolerance) {
    long total = mine;
    for (int peer : peers) {
      total += peer;
    }
    double share = (double) total / (peers.length + 1);
    boolean crowded = mine > share * (1 + tolerance) && mine - share > SLACK;
    boolean someoneShort = false;
    for (int peer : peers) {
      someoneShort |= peer < share * (1 - tolerance) && share - peer > SLACK;
    }
    if (!crowded && !(someoneShort && mine - share >= 1)) {
      return 0;
    }
    return (int) Math.floor(mine - share);
  }
}
