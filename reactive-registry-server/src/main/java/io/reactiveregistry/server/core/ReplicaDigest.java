package io.reactiveregistry.server.core;

/**
 * A summary of one node's claims that two nodes can compare without sending the claims: how many,
 * and the sum of a 64-bit hash of each (service, instance, stamp, health). A sum, so both sides
 * keep it up to date claim by claim (add the new hash, subtract the old one) instead of reading
 * every claim for each comparison; equal digests mean equal claims but for a 2^-64 chance.
 */
public record ReplicaDigest(int count, long hash) {
  public static final ReplicaDigest EMPTY = new ReplicaDigest(0, 0);

  /** This digest with one more claim. */
  public ReplicaDigest plus(ReplicaChange.Claimed claim) {
    return new ReplicaDigest(count + 1, hash + hashOf(claim));
  }

  static long hashOf(ReplicaChange.Claimed claim) {
    return hashOf(claim.service(), claim.instance(), claim.healthy(), claim.stamp());
  }

  /**
   * The hash of one claim, from the fields themselves (String hashes are specified and cached: the
   * same on every JVM, and nothing is built to compute it). Never 0, which marks "no claim".
   */
  static long hashOf(ServiceKey service, InstanceSpec instance, boolean healthy, long stamp) {
    long h = mix(stamp ^ service.namespace().hashCode());
    h = mix(h ^ service.group().hashCode());
    h = mix(h ^ service.service().hashCode());
    h = mix(h ^ instance.ip().hashCode());
    h = mix(h ^ instance.port());
    h = mix(h ^ instance.cluster().hashCode() ^ (healthy ? 0x9E3779B97F4A7C15L : 0x632BE59BD9B4E019L));
    return h == 0 ? 1 : h;
  }

  /** SplitMix64's finalizer: every input bit moves every output bit. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
