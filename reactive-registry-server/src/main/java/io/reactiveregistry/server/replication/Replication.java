package io.reactiveregistry.server.replication;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.SetupData;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.cluster.Membership;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.tracing.Tracing;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * Ephemeral instances across the cluster, for one node: the streams of its claims that its peers
 * follow, and its links following theirs. A single server serves its stream too (a tool may follow
 * it) and follows nobody.
 */
public final class Replication implements Disposable {
  private static final Logger log = LoggerFactory.getLogger(Replication.class);
  /**
   * How long a lost peer's copies are kept, how often digests are compared, how long a stopping
   * member waits for its clients to move to the others, and how client connections are spread over
   * the members: at most {@code rebalancePerRound} asked to move per round (0: never), while this
   * member holds more than its share by {@code rebalanceTolerance} (a fraction of the share), and
   * the member's {@code zone} (null: none), which clients of a zone prefer.
   */
  public record Settings(Duration grace, Duration antiEntropy, Duration moveTimeout, int rebalancePerRound,
      double rebalanceTolerance, @Nullable String zone) {
    public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(4), Duration.ofSeconds(2),
        Duration.ofSeconds(10), 50, 0.1, null);

    public Settings {
      if (grace.isNegative() || antiEntropy.toMillis() < 1 || moveTimeout.isNegative()) {
        throw new IllegalArgumentException("the replication grace and the move timeout must be at least 0 ms and "
            + "the anti-entropy interval at least 1 ms: " + grace.toMillis() + ", " + moveTimeout.toMillis() + ", "
            + antiEntropy.toMillis());
      }
      if (rebalancePerRound < 0 || !(rebalanceTolerance >= 0 && rebalanceTolerance <= 10)) {
        throw new IllegalArgumentException("the connections rebalanced per round must be at least 0 (0: off), and "
            + "the rebalance tolerance from 0 to 10 (a fraction of a member's share): " + rebalancePerRound + ", "
            + rebalanceTolerance);
      }
    }

    public Settings(Duration grace, Duration antiEntropy) {
      this(grace, antiEntropy, DEFAULTS.moveTimeout());
    }

    public Settings(Duration grace, Duration antiEntropy, Duration moveTimeout) {
      this(grace, antiEntropy, moveTimeout, DEFAULTS.rebalancePerRound(), DEFAULTS.rebalanceTolerance());
    }

    public Settings(Duration grace, Duration antiEntropy, Duration moveTimeout, int rebalancePerRound,
        double rebalanceTolerance) {
      this(grace, antiEntropy, moveTimeout, rebalancePerRound, rebalanceTolerance, null);
    }

    public Settings withZone(@Nullable String value) {
      return new Settings(grace, antiEntropy, moveTimeout, rebalancePerRound, rebalanceTolerance, value);
    }
  }

  private final ClaimFeeds feeds;
  /** One link a peer; replaced as the membership changes (read from any thread). */
  private final List<PeerLink> links = new CopyOnWriteArrayList<>();
  private final RegistryRuntime runtime;
  private final Disposable digests;
  private final Membership membership;
  private final Disposable membershipChanges;
  private volatile IntSupplier connections = () -> 0;
  /** This member's Nacos clients' connections and port, reported with each digest; -1: no Nacos door. */
  private volatile IntSupplier nacos = () -> -1;
  private volatile int nacosPort = -1;
  /** This member's zone ({@code --zone}), reported to its peers with each digest; null: none. */
  private final @Nullable String zone;
  private final String self;

  public Replication(String self, Membership membership, RegistryRuntime runtime, Settings settings,
      ServerMeters meters, InstantSource clock, String version, Scheduler scheduler, PeerAccess access,
      Tracing tracing, PeerRuns peerRuns) {
    this.self = self;
    this.zone = settings.zone();
    this.runtime = runtime;
    this.membership = membership;
    // Before any link starts: two event loops meeting a message type for the first time would wait
    // on Jackson's lock (see JsonCodec#prepare).
    JsonCodec.json().prepare(ReplicaFrame.class, ReplicaFrame.Entry.class, ReplicaRequest.class, SetupData.class);
    // Any run of this node differs from the last: peers replace its copies by the new snapshot.
    long epoch = clock.millis() << 16 | ThreadLocalRandom.current().nextInt(1 << 16);
    this.feeds = new ClaimFeeds(self, epoch, runtime, scheduler);
    // Fixed buckets (an array of counters), not client-side percentiles (HdrHistogram may take a
    // lock to resize): the lag is recorded on the event loop that reads the stream.
    Timer lag = Timer.builder("registry.replication.lag")
        .description("from a change's stamp on its node to its arrival here (by the two nodes' clocks)")
        .serviceLevelObjectives(ServerMeters.LATENCY_BUCKETS).register(meters.registry());
    Counter repairs = Counter.builder("registry.replication.repairs")
        .description("streams restarted because a digest showed copies differing from their node's claims")
        .register(meters.registry());
    Function<ClusterConfig.Member, PeerLink> linkTo = member -> {
      PeerLink started = new PeerLink(self, member, runtime, settings.grace(), scheduler, clock, version,
          millis -> lag.record(millis, TimeUnit.MILLISECONDS), repairs::increment, access, tracing,
          peerRuns).start();
      meters.gauge("registry.replication.peer.copies", "instances held as copies of one peer's claims",
          () -> runtime.read(reads -> reads.replicaCopies(member.id())), "node", member.id());
      return started;
    };
    // The membership now, then each change the group commits: a new member is followed at once, a
    // removed one's copies are dropped after the grace (its clients move meanwhile).
    this.membershipChanges = membership.changes().subscribe(cluster -> follow(self, cluster, linkTo, settings.grace(),
        scheduler));
    meters.gauge("registry.replication.copies", "instances held as copies of other nodes' claims",
        () -> runtime.read(reads -> links.stream().mapToInt(link -> reads.replicaCopies(link.peer())).sum()));
    meters.gauge("registry.replication.peers.connected", "peers whose stream of instances this node follows now",
        () -> links.stream().filter(PeerLink::connected).count());
    this.digests = feeds.startDigests(settings.antiEntropy(), scheduler,
        () -> new ClientLoad(connections.getAsInt(), nacosPort < 0 ? -1 : nacos.getAsInt(), nacosPort), () -> zone);
  }

  private synchronized void follow(String self, ClusterConfig cluster, Function<ClusterConfig.Member, PeerLink> link,
      Duration grace, Scheduler scheduler) {
    if (!cluster.clustered()) {
      return;
    }
    for (PeerLink existing : links) {
      Optional<ClusterConfig.Member> now = cluster.member(existing.peer());
      if (now.isEmpty() || existing.peer().equals(self)) {
        links.remove(existing);
        existing.dispose();
        String gone = existing.peer();
        scheduler.schedule(() -> runtime.execute(new Command.DropReplica(gone)), grace.toMillis(),
            TimeUnit.MILLISECONDS);
        log.info("{} left the cluster: no longer following it; its copies are dropped in {} ms", gone,
            grace.toMillis());
      } else if (!now.get().equals(existing.member())) { // moved: followed at its new address
        links.remove(existing);
        existing.dispose();
        links.add(link.apply(now.get()));
      }
    }
    for (ClusterConfig.Member member : cluster.members()) {
      if (!member.id().equals(self) && links.stream().noneMatch(existing -> existing.peer().equals(member.id()))) {
        links.add(link.apply(member));
      }
    }
  }

  /** The members as the group last committed them. */
  public ClusterConfig members() {
    return membership.current();
  }

  /** A peer's stream of this node's claims ({@code cluster.replicate}). */
  public Flux<byte[]> feed(String peer) {
    return feeds.open(peer);
  }

  /** How this node follows each peer, for {@code server.info} and {@code /api/v1/cluster}. */
  public List<ClusterInfo.Peer> status() {
    List<ClusterInfo.Peer> peers = new ArrayList<>(links.size());
    for (PeerLink link : links) {
      int copies = runtime.read(reads -> reads.replicaCopies(link.peer()));
      peers.add(new ClusterInfo.Peer(link.peer(), link.connected(), link.epoch(), copies,
          feeds.waitingChanges(link.peer()), link.lastLagMillis(), link.repairs()));
    }
    return peers;
  }

  /**
   * A connected peer's client connections, as it reported them with its last digest (every
   * anti-entropy interval), and when that arrived (System.nanoTime); with its Nacos clients'
   * connections and where Nacos clients reach it (its member host and its Nacos HTTP port), or -1,
   * null and -1 when it has no Nacos door a client can be sent to.
   */
  public record PeerLoad(String node, String address, int connections, long reportedAtNanos,
      @Nullable String zone, int nacosConnections, @Nullable String nacosHost, int nacosPort) {}

  /**
   * The connected peers that have reported their client connections. A peer is named as a Nacos
   * address only when no other member shares its host: a Nacos client follows a move only to a
   * server of its list, found by IP, so it cannot be sent to one of two members on one host.
   */
  public List<PeerLoad> peerLoads() {
    Map<String, Integer> membersOnHost = new HashMap<>();
    for (ClusterConfig.Member member : membership.current().members()) {
      membersOnHost.merge(member.host(), 1, Integer::sum);
    }
    List<PeerLoad> loads = new ArrayList<>(links.size());
    for (PeerLink link : links) {
      PeerLink.Load load = link.load();
      if (link.connected() && load != null) {
        ClientLoad clients = load.clients();
        String host = link.member().host();
        boolean nacos = clients.nacosPort() >= 0 && membersOnHost.getOrDefault(host, 1) == 1;
        loads.add(new PeerLoad(link.peer(), link.member().address(), clients.connections(), load.atNanos(),
            link.zone(), nacos ? clients.nacosConnections() : -1, nacos ? host : null,
            nacos ? clients.nacosPort() : -1));
      }
    }
    return loads;
  }

  /** The zone of each member as far as this node knows: its own, and each connected peer's report. */
  public Map<String, String> zones() {
    Map<String, String> known = new HashMap<>();
    if (zone != null) {
      known.put(self, zone);
    }
    for (PeerLink link : links) {
      String theirs = link.zone();
      if (link.connected() && theirs != null) {
        known.put(link.peer(), theirs);
      }
    }
    return known;
  }

  /** Counts the client connections this node reports to its peers with each digest (none until set). */
  public void countConnections(IntSupplier clientConnections) {
    this.connections = clientConnections;
  }

  /**
   * Counts the Nacos clients' connections this node reports with each digest, and names the Nacos
   * port they reach it on ({@code port}, its Nacos HTTP port: a Nacos client adds 1000 for gRPC).
   */
  public void countNacosConnections(IntSupplier nacosConnections, int port) {
    this.nacos = nacosConnections;
    this.nacosPort = port;
  }

  /** The peers whose stream of instances this node follows now: the members known to be up. */
  public List<String> connectedPeers() {
    return links.stream().filter(PeerLink::connected).map(PeerLink::peer).toList();
  }

  /**
   * This member is stopping and its clients have moved: what it changes from now on (releasing the
   * instances of the clients that stayed, as their connections close) is not sent to its peers,
   * which keep those instances for the grace period ({@link ClaimFeeds#freeze()}).
   */
  public void freezeClaims() {
    feeds.freeze();
  }

  @Override
  public void dispose() {
    membershipChanges.dispose();
    digests.dispose();
    links.forEach(PeerLink::dispose);
  }

  @Override
  public boolean isDisposed() {
    return digests.isDisposed();
  }
}
