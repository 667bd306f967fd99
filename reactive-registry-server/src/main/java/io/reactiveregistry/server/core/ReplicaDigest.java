package io.reactiveregistry.server.core;

/**
 * A summary of one node's claims that two nodes can compare without sending the claims: how many,
 * and the sum of a 64-bit hash of each (service, instance, stamp, health). Order-independent, so
 * the owner and a peer compute it from their own maps; equal digests mean equal claims but for a
 * 2^-64 chance.
 */
public record ReplicaDigest(int count, long hash) {
  public static final ReplicaDigest EMPTY = new ReplicaDigest(0, 0);

  /** This digest with one more claim. */
  public ReplicaDigest plus(ReplicaChange.Claimed claim) {
    return new ReplicaDigest(count + 1, hash + hashOf(claim));
  }

  static long hashOf(ReplicaChange.Claimed claim) {
    long h = claim.stamp();
    h = mix(h ^ claim.service().toString().hashCode());
    h = mix(h ^ claim.instanceId().hashCode());
    return mix(h ^ (claim.healthy() ? 0x9E3779B97F4A7C15L : 0x632BE59BD9B4E019L));
  }

  /** SplitMix64's finalizer: every input bit moves every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
