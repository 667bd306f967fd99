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

  private final String self;
  private final HybridClock stamps;
  private final Instances instances;
  private final Map<String, Map<InstanceAddress, ReplicaChange.Claimed>> copies = new HashMap<>();
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
    Map<InstanceAddress, ReplicaChange.Claimed> held = copies.computeIfAbsent(node, n -> new HashMap<>());
    Set<InstanceAddress> touched = new LinkedHashSet<>();
    if (replacing) {
      touched.addAll(held.keySet());
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
    Map<InstanceAddress, ReplicaChange.Claimed> held = copies.remove(node);
    if (held == null) {
      return 0;
    }
    held.keySet().forEach(this::resolve);
    return held.size();
  }

  /** The digest of what this node holds of a peer's claims, to compare with the peer's own. */
  ReplicaDigest digest(String node) {
    ReplicaDigest digest = ReplicaDigest.EMPTY;
    for (ReplicaChange.Claimed claim : copies.getOrDefault(node, Map.of()).values()) {
      digest = digest.plus(claim);
    }
    return digest;
  }

  /** How many copies this node holds of a peer's claims. */
  int held(String node) {
    return copies.getOrDefault(node, Map.of()).size();
  }

  /** The peers whose copies this node holds. */
  Set<String> nodes() {
    return Set.copyOf(copies.keySet());
  }

  private void resolve(InstanceAddress address) {
    Candidate best = null;
    for (Map.Entry<String, Map<InstanceAddress, ReplicaChange.Claimed>> peer : copies.entrySet()) {
      ReplicaChange.Claimed claim = peer.getValue().get(address);
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
