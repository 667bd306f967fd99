package io.reactiveregistry.server.core;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Other nodes' copies: what each peer said its own connections own, kept per peer exactly as it
 * said (so that a digest of them equals the peer's own), and which claim of an instance is shown
 * when several nodes claim it — the one with the highest hybrid-clock stamp, ties broken by node
 * id. This node's own claim competes with the same rule; a newer one elsewhere takes the instance
 * over, a newer one here (a client that moved back) keeps it.
 */
final class Replicas {
  private record Candidate(String node, ReplicaChange.Claimed claim) {}

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

  Replicas(String self, HybridClock stamps, Instances instances) {
    this.self = self;
    this.stamps = stamps;
    this.instances = instances;
    instances.onClaimGone(this::resolve);
  }

  /** A peer's changes, in the order it made them; with {@code replacing}, its whole set of claims. */
  int apply(String node, List<ReplicaChange> changes, boolean replacing) {
    if (node.equals(self)) {
      throw RegistryException.invalid("node " + node + " is this node; it replicates only to its peers");
    }
    PeerCopies held = copies.computeIfAbsent(node, n -> new PeerCopies());
    Set<InstanceAddress> touched = new LinkedHashSet<>();
    if (replacing) {
      touched.addAll(held.claims.keySet());
      held.clear();
    }
    for (ReplicaChange change : changes) {
      ServiceKey key = instances.canonical(change.service());
      InstanceAddress address = new InstanceAddress(key, change.instanceId());
      if (change instanceof ReplicaChange.Claimed claim) {
        stamps.observe(claim.stamp());
        held.put(address, key == claim.service() ? claim
            : new ReplicaChange.Claimed(key, claim.instance(), claim.healthy(), claim.stamp()));
      } else {
        held.remove(address);
      }
      touched.add(address);
    }
    touched.forEach(this::resolve);
    return changes.size();
  }

  /** Forgets a peer's copies (it was lost for longer than the grace period): what no other node claims goes. */
  int drop(String node) {
    PeerCopies held = copies.remove(node);
    if (held == null) {
      return 0;
    }
    held.claims.keySet().forEach(this::resolve);
    return held.claims.size();
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
    if (best == null) {
      instances.removeReplica(address.service(), address.instanceId());
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
