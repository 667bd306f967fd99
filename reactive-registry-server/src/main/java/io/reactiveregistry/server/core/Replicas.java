package io.reactiveregistry.server.core;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Other nodes' copies: what each peer said its own connections own, kept per peer exactly as it
 * said (so that a digest of them equals the peer's own), and which claim of an instance is shown
 * when several nodes claim it — the one with the highest hybrid-clock stamp, ties broken by node
 * id. This node's own claim competes with the same rule; a newer one elsewhere takes the instance
 * over, a newer one here (a client that moved back) keeps it.
 *
 * <p>A peer that withdraws a claim because a third node took the instance over says so; until
 * this node hears that newer claim (it comes on the third node's own stream, which may be slower),
 * it keeps showing the withdrawn copy — a handover — rather than remove the instance and add it
 * back a moment later. Any word from the taking node about the instance, or that node's loss,
 * ends the handover; so does {@link #HANDOVER_WAIT} without one (the taking node may have claimed
 * and withdrawn the instance before the old node's withdrawal arrived here).
 */
final class Replicas {
  private record Candidate(String node, ReplicaChange.Claimed claim) {}

  /**
   * A copy withdrawn by {@code from} in favour of {@code to}'s claim stamped {@code stamp}, not yet
   * heard; or ({@code to} null) a copy of a restarted node's last run, kept for what is left of the
   * grace in case its client registers elsewhere. Shown until {@code until} where it is the newest.
   */
  private record Handover(String from, ReplicaChange.Claimed claim, @Nullable String to, long stamp, long until) {}

  /** How long a withdrawn copy is shown while waiting for the claim that took it over. */
  static final long HANDOVER_WAIT = 5_000;

  /** One peer's copies, with their digest kept up to date as they change. */
  private static final class PeerCopies {
    final Map<InstanceAddress, ReplicaChange.Claimed> claims = new HashMap<>();
    long hash;

    void put(InstanceAddress address, ReplicaChange.Claimed claim) {
      ReplicaChange.Claimed old = claims.put(address, claim);
      hash += ReplicaDigest.hashOf(claim) - (old == null ? 0 : ReplicaDigest.hashOf(old));
    }

    void remove(InstanceAddress address) {
      ReplicaChange.Claimed old = claims.remove(address);
      if (old != null) {
        hash -= ReplicaDigest.hashOf(old);
      }
    }

    void clear() {
      claims.clear();
      hash = 0;
    }
  }

  private final String self;
  private final HybridClock stamps;
  private final Instances instances;
  private final Map<String, PeerCopies> copies = new HashMap<>();
  private final Map<String, Owner> peers = new HashMap<>();
  private final Map<InstanceAddress, Handover> handovers = new HashMap<>();
  private final InstantSource clock;

  Replicas(String self, HybridClock stamps, Instances instances, InstantSource clock) {
    this.clock = clock;
    this.self = self;
    this.stamps = stamps;
    this.instances = instances;
    instances.onClaimGone(address -> {
      // With no other node's copy or hand-over anywhere (a single server, a member alone) there is
      // nothing to show in its place: skip the look-ups, once per instance released.
      if (!copies.isEmpty() || !handovers.isEmpty()) {
        resolve(address);
      }
    });
  }

  /**
   * A peer's changes, in the order it made them; with {@code replacing}, its whole set of claims,
   * those it held before and no longer claims kept until {@code keptUntil} where no other node
   * claims them (see {@link Command.ApplyReplica}).
   */
  int apply(String node, List<ReplicaChange> changes, boolean replacing, long keptUntil) {
    if (node.equals(self)) {
      throw RegistryException.invalid("node " + node + " is this node; it replicates only to its peers");
    }
    PeerCopies held = copies.computeIfAbsent(node, n -> new PeerCopies());
    Set<InstanceAddress> touched = new LinkedHashSet<>();
    Map<InstanceAddress, ReplicaChange.Claimed> before = Map.of();
    if (replacing) {
      if (keptUntil > clock.millis()) {
        before = new HashMap<>(held.claims);
      }
      touched.addAll(held.claims.keySet());
      held.clear();
      touched.addAll(endHandoversTo(node)); // its snapshot says what it claims
    }
    Map<InstanceAddress, TraceContext> traces = null;
    for (ReplicaChange change : changes) {
      ServiceKey key = instances.canonical(change.service());
      InstanceAddress address = new InstanceAddress(key, change.instanceId());
      if (change.trace() != null) {
        if (traces == null) {
          traces = new HashMap<>();
        }
        traces.put(address, change.trace());
      }
      Handover waiting = handovers.get(address);
      if (waiting != null && node.equals(waiting.to())) {
        handovers.remove(address); // the taking node's own word about it, whatever it is
      }
      if (change instanceof ReplicaChange.Claimed claim) {
        stamps.observe(claim.stamp());
        // Kept without its trace: the copy outlives the request, and the trace is only the change's.
        held.put(address, key == claim.service() && claim.trace() == null ? claim
            : new ReplicaChange.Claimed(key, claim.instance(), claim.healthy(), claim.stamp()));
      } else {
        ReplicaChange.Claimed withdrawn = held.claims.get(address);
        held.remove(address);
        if (withdrawn != null && change instanceof ReplicaChange.Withdrawn taken && taken.takenOverBy() != null
            && !heard(address, taken.takenOverBy(), taken.stamp())) {
          handovers.put(address, new Handover(node, withdrawn, taken.takenOverBy(), taken.stamp(),
              clock.millis() + HANDOVER_WAIT));
        }
      }
      touched.add(address);
    }
    for (Map.Entry<InstanceAddress, ReplicaChange.Claimed> last : before.entrySet()) {
      if (!held.claims.containsKey(last.getKey())) {
        handovers.putIfAbsent(last.getKey(), new Handover(node, last.getValue(), null, 0, keptUntil));
      }
    }
    for (InstanceAddress address : touched) {
      TraceContext trace = traces == null ? null : traces.get(address);
      if (trace == null) {
        resolve(address);
        continue;
      }
      instances.tracing(trace); // what the copy's change does here is a span of the peer's request
      try {
        resolve(address);
      } finally {
        instances.tracing(null);
      }
    }
    return changes.size();
  }

  /** Forgets a peer's copies (it was lost for longer than the grace period): what no other node claims goes. */
  int drop(String node) {
    endHandoversTo(node).forEach(address -> resolve(address, ChangeCause.MEMBER_LOST));
    PeerCopies held = copies.remove(node);
    if (held == null) {
      return 0;
    }
    held.claims.keySet().forEach(address -> resolve(address, ChangeCause.MEMBER_LOST));
    return held.claims.size();
  }

  /** Ends the handovers waiting for {@code node}'s claims: the addresses they were about. */
  private List<InstanceAddress> endHandoversTo(String node) {
    List<InstanceAddress> ended = new ArrayList<>();
    handovers.entrySet().removeIf(entry -> {
      if (node.equals(entry.getValue().to())) {
        ended.add(entry.getKey());
        return true;
      }
      return false;
    });
    return ended;
  }

  /** Whether {@code node}'s claim of the address, stamped {@code stamp} or later, is already known here. */
  private boolean heard(InstanceAddress address, String node, long stamp) {
    if (node.equals(self)) {
      return instances.localClaimStamp(address.service(), address.instanceId()) >= stamp;
    }
    PeerCopies theirs = copies.get(node);
    ReplicaChange.Claimed claim = theirs == null ? null : theirs.claims.get(address);
    return claim != null && claim.stamp() >= stamp;
  }

  /** Ends the handovers that waited {@link #HANDOVER_WAIT} in vain: what nobody claims goes. */
  void endLateHandovers() {
    if (handovers.isEmpty()) {
      return;
    }
    long now = clock.millis();
    Map<InstanceAddress, Handover> late = new HashMap<>();
    handovers.entrySet().removeIf(entry -> {
      if (entry.getValue().until() <= now) {
        late.put(entry.getKey(), entry.getValue());
        return true;
      }
      return false;
    });
    // A restarted node's last-run copy outlived the grace: its member's run that held it is lost.
    late.forEach((address, handover) -> resolve(address, handover.to() == null ? ChangeCause.MEMBER_LOST
        : ChangeCause.REPLICATED));
  }

  /** Handovers waiting for the taking node's claim, for tests and meters. */
  int handovers() {
    return handovers.size();
  }

  /** The digest of what this node holds of a peer's claims, to compare with the peer's own. */
  ReplicaDigest digest(String node) {
    PeerCopies held = copies.get(node);
    return held == null ? ReplicaDigest.EMPTY : new ReplicaDigest(held.claims.size(), held.hash);
  }

  /** How many copies this node holds of a peer's claims. */
  int held(String node) {
    PeerCopies held = copies.get(node);
    return held == null ? 0 : held.claims.size();
  }

  private void resolve(InstanceAddress address) {
    resolve(address, ChangeCause.REPLICATED);
  }

  /** Shows the newest claim of the address; with none, its copy goes for {@code cause}. */
  private void resolve(InstanceAddress address, ChangeCause cause) {
    Candidate best = null;
    for (Map.Entry<String, PeerCopies> peer : copies.entrySet()) {
      ReplicaChange.Claimed claim = peer.getValue().claims.get(address);
      if (claim != null && (best == null || newer(claim.stamp(), peer.getKey(), best.claim.stamp(), best.node))) {
        best = new Candidate(peer.getKey(), claim);
      }
    }
    long local = instances.localClaimStamp(address.service(), address.instanceId());
    if (local >= 0 && (best == null || newer(local, self, best.claim.stamp(), best.node))) {
      return; // this node's own registration is the newest
    }
    Handover waiting = handovers.get(address);
    if (waiting != null && (best == null || newer(waiting.claim().stamp(), waiting.from(), best.claim.stamp(),
        best.node))) {
      best = new Candidate(waiting.from(), waiting.claim()); // shown until the taking node's claim arrives
    }
    if (best == null) {
      instances.removeReplica(address.service(), address.instanceId(), cause);
    } else {
      // The address's id string, shared by the copy kept and the instance shown.
      instances.showReplica(peers.computeIfAbsent(best.node, Owner::peer), best.claim, address.instanceId());
    }
  }

  /** The ordering rule: the higher stamp, and between equal stamps the higher node id. */
  static boolean newer(long stamp, String node, long otherStamp, String otherNode) {
    return stamp != otherStamp ? stamp > otherStamp : node.compareTo(otherNode) > 0;
  }
}
