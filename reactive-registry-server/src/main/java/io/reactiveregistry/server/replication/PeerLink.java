package io.reactiveregistry.server.replication;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.ReplicaChange;
import io.reactiveregistry.server.core.ReplicaDigest;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.tracing.Tracing;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * This node's follower of one peer's {@code cluster.replicate} stream: it keeps a connection to the
 * peer, applies the peer's snapshot and changes as that peer's copies, and checks each digest
 * against what it holds — a difference (a change lost, a healed partition) is repaired by a new
 * stream, whose snapshot replaces the copies. When the stream breaks, the copies stay for the
 * grace period, so that the peer's clients can re-register elsewhere without their instances
 * vanishing; then those nobody took over go.
 */
public final class PeerLink implements Disposable {
  private static final Logger log = LoggerFactory.getLogger(PeerLink.class);
  private static final JsonCodec json = JsonCodec.json();
  /** Keepalives every second and a peer silent for 3 s is lost: a stopped process is noticed as fast as a dead one. */
  static final Duration KEEPALIVE_INTERVAL = Duration.ofSeconds(1);
  static final Duration KEEPALIVE_MAX_LIFETIME = Duration.ofSeconds(3);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** A digest showed this node's copies differ from the peer's claims: the stream restarts with a snapshot. */
  static final class RepairNeeded extends RuntimeException {
    RepairNeeded(String message) {
      super(message, null, false, false);
    }
  }

  private final String self;
  private final ClusterConfig.Member peer;
  private final RegistryRuntime runtime;
  private final Duration grace;
  private final Scheduler timer;
  private final InstantSource clock;
  private final String version;
  private final LongConsumer lagMillis;
  private final Runnable repaired;
  /** Told each time the peer's stream is up, and whether from a new run of the peer (a restart). */
  private final PeerRuns runs;
  /** How this node reaches its peers: TLS and a token when the cluster's members need them. */
  private final PeerAccess access;
  private final Tracing tracing;
  private final AtomicLong repairs = new AtomicLong();
  private final List<ReplicaChange> snapshot = new ArrayList<>();
  private volatile boolean connected;
  /** The clients the peer said it holds in its last digest; null before one. */
  private volatile @Nullable Load load;
  /** The zone the peer said it is in with its last digest; null when none (or before one). */
  private volatile @Nullable String zone;
  private volatile long epoch;
  private volatile long lastLagMillis;
  /** The highest stamp received from the peer: only newer registrations are timed. */
  private long newestStamp;
  private Disposable loop;
  private @Nullable Disposable graceTimer;
  /** When the running grace ends, by the clock the runtime keeps (valid while graceTimer is set). */
  private long graceEndsMillis;
  private boolean repairing;

  public PeerLink(String self, ClusterConfig.Member peer, RegistryRuntime runtime, Duration grace, Scheduler timer,
      InstantSource clock, String version, LongConsumer lagMillis, Runnable repaired, PeerAccess access,
      Tracing tracing, PeerRuns runs) {
    this.tracing = tracing;
    this.runs = runs;
    this.repaired = repaired;
    this.access = access;
    this.self = self;
    this.peer = peer;
    this.runtime = runtime;
    this.grace = grace;
    this.timer = timer;
    this.clock = clock;
    this.version = version;
    this.lagMillis = lagMillis;
  }

  public PeerLink start() {
    loop = Flux.defer(this::follow)
        .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(1)).jitter(0.3)
            .transientErrors(true)
            .doBeforeRetry(signal -> log.debug("replication from {}: {}", peer.id(), signal.failure().toString())))
        .subscribe();
    return this;
  }

  private Flux<Payload> follow() {
    return connect()
        .flatMapMany(socket -> socket.requestStream(request()).doFinally(signal -> socket.dispose()))
        .limitRate(64)
        .doOnNext(this::handle)
        .doFinally(signal -> lost());
  }

  private Mono<RSocket> connect() {
    return access.connect(peer.host(), peer.port(), "peer " + self, version, KEEPALIVE_INTERVAL,
        KEEPALIVE_MAX_LIFETIME).timeout(CONNECT_TIMEOUT);
  }

  private Payload request() {
    return ByteBufPayload.create(Unpooled.wrappedBuffer(json.encode(new ReplicaRequest(self))),
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, Route.CLUSTER_REPLICATE.routeName()));
  }

  private void handle(Payload payload) {
    ReplicaFrame frame;
    try {
      frame = json.decode(payload.sliceData(), ReplicaFrame.class);
    } finally {
      payload.release();
    }
    switch (frame.type()) {
      case ReplicaFrame.SNAPSHOT -> {
        if (frame.node() != null && !frame.node().equals(peer.id())) {
          throw new IllegalStateException("the member at " + peer.address() + " is node " + frame.node() + ", not "
              + peer.id() + ": check --members on every node");
        }
        snapshot.addAll(ReplicaCodec.changes(frame.entries()));
        if (Boolean.TRUE.equals(frame.last())) {
          connected(frame.epoch() == null ? 0 : frame.epoch());
        }
      }
      case ReplicaFrame.CHANGES -> {
        List<ReplicaChange> changes = traced(ReplicaCodec.changes(frame.entries()));
        runtime.execute(new Command.ApplyReplica(peer.id(), changes, false));
        // Timed by registrations stamped after every one seen before: a health change re-sends an
        // old registration's stamp, which says nothing of how fast changes travel.
        long newest = 0;
        for (ReplicaChange change : changes) {
          if (change instanceof ReplicaChange.Claimed claim && claim.stamp() > newestStamp) {
            newestStamp = claim.stamp();
            newest = claim.stampMillis();
          }
        }
        if (newest > 0) {
          lastLagMillis = Math.max(0, clock.millis() - newest);
          lagMillis.accept(lastLagMillis);
        }
      }
      case ReplicaFrame.DIGEST -> {
        if (frame.connections() != null) {
          load = new Load(new ClientLoad(frame.connections(),
              frame.nacosConnections() == null ? -1 : frame.nacosConnections(),
              frame.nacosPort() == null ? -1 : frame.nacosPort()), System.nanoTime());
        }
        zone = frame.zone();
        ReplicaDigest theirs = new ReplicaDigest(frame.count(), frame.hash());
        ReplicaDigest mine = runtime.read(reads -> reads.replicaDigest(peer.id()));
        if (!mine.equals(theirs)) {
          repairs.incrementAndGet();
          repaired.run();
          log.warn("replication from {}: this node holds {} copies, the peer claims {}; repairing with a new snapshot",
              peer.id(), mine.count(), theirs.count());
          synchronized (this) {
            repairing = true;
          }
          throw new RepairNeeded("copies of " + peer.id() + " differ from its claims");
        }
      }
      default -> log.debug("replication from {}: frame type {} ignored", peer.id(), frame.type());
    }
  }

  /**
   * The changes, those made in a trace now in this member's {@code cluster.replicate} span of it
   * (recorded here): what they do here, and their pushes, are that span's children.
   */
  private List<ReplicaChange> traced(List<ReplicaChange> changes) {
    if (!tracing.on()) {
      return changes;
    }
    List<ReplicaChange> traced = changes;
    for (int i = 0; i < changes.size(); i++) {
      ReplicaChange change = changes.get(i);
      if (change.trace() != null) {
        long madeAt = change instanceof ReplicaChange.Claimed claim ? claim.stampMillis() : clock.millis();
        if (traced == changes) {
          traced = new ArrayList<>(changes);
        }
        traced.set(i, change.in(tracing.replicated(change.trace(), peer.id(), madeAt)));
      }
    }
    return traced;
  }

  /** The snapshot is whole: it replaces the peer's copies (under this link's lock, never beside a drop). */
  private synchronized void connected(long epoch) {
    // Within the grace of its loss (a restart, a blip), what the peer no longer claims stays until
    // the grace ends: its clients may be registering elsewhere right now.
    long keptUntil = graceTimer != null ? graceEndsMillis : 0;
    runtime.execute(new Command.ApplyReplica(peer.id(), List.copyOf(snapshot), true, keptUntil));
    log.info("replicating from {}: {} instances (epoch {})", peer.id(), snapshot.size(), epoch);
    snapshot.clear();
    // Each run of a node streams under an epoch of its own: a new one after an earlier one is a restart.
    boolean restart = this.epoch != 0 && this.epoch != epoch;
    this.epoch = epoch;
    connected = true;
    runs.connected(peer.id(), restart);
    if (graceTimer != null) {
      graceTimer.dispose();
      graceTimer = null;
    }
  }

  /** The stream ended: unless for a repair, the copies are kept for the grace period, then dropped. */
  private synchronized void lost() {
    snapshot.clear();
    boolean wasConnected = connected;
    connected = false;
    load = null;
    if (repairing) {
      repairing = false;
      return;
    }
    if (wasConnected) {
      log.warn("lost replication from {}; its copies are kept for {} ms", peer.id(), grace.toMillis());
    }
    if (graceTimer == null && !isDisposed()) {
      graceEndsMillis = clock.millis() + grace.toMillis();
      graceTimer = timer.schedule(this::graceOver, grace.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Under this link's lock, so that a stream reconnecting meanwhile applies its snapshot after the drop. */
  private synchronized void graceOver() {
    graceTimer = null;
    if (connected || isDisposed()) {
      return;
    }
    int dropped = runtime.read(reads -> reads.replicaCopies(peer.id()));
    runtime.execute(new Command.DropReplica(peer.id()));
    if (dropped > 0) {
      log.warn("replication from {} lost for {} ms: its {} copies dropped (those taken over elsewhere stay)",
          peer.id(), grace.toMillis(), dropped);
    }
  }

  public String peer() {
    return peer.id();
  }

  public boolean connected() {
    return connected;
  }

  /** What the peer last said of its clients, and when (nanoTime); null before it did. */
  record Load(ClientLoad clients, long atNanos) {}

  @Nullable String zone() {
    return zone;
  }

  @Nullable Load load() {
    return load;
  }

  ClusterConfig.Member member() {
    return peer;
  }

  public long epoch() {
    return epoch;
  }

  public long repairs() {
    return repairs.get();
  }

  /** The lag of the last change received: now minus its stamp's time (meaningful when clocks agree). */
  public long lastLagMillis() {
    return lastLagMillis;
  }

  @Override
  public void dispose() {
    Disposable running = loop;
    if (running != null) {
      running.dispose();
    }
    synchronized (this) {
      if (graceTimer != null) {
        graceTimer.dispose();
        graceTimer = null;
      }
    }
  }

  @Override
  public boolean isDisposed() {
    Disposable running = loop;
    return running != null && running.isDisposed();
  }
}
