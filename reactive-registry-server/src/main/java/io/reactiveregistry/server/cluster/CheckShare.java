package io.reactiveregistry.server.cluster;

import io.reactiveregistry.server.core.ServiceKey;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Which member health-checks a service's persistent instances: the live member that ranks highest
 * for the service by rendezvous hashing (a stable hash of the member's id and the service's name,
 * the same on every member). So the checks spread over the members, a service stays with its
 * member while the members stay the same, and when a member is lost only its services move, each
 * to the member that ranks next for it. The rule of Nacos's Distro responsibility, without a ring
 * to keep.
 *
 * <p>Members decide from what they see (themselves and the peers whose streams they follow): while
 * views differ, for the seconds it takes a lost member to be noticed, a service may be checked by
 * two members or by none for a round; a verdict is committed only when the health changes, so a
 * second checker commits nothing new.
 */
public final class CheckShare implements Predicate<ServiceKey> {
  private final String self;
  private final Supplier<? extends Collection<String>> live;

  /**
   * @param self this member's id
   * @param live the members that check now, this one included (the members this one hears from)
   */
  public CheckShare(String self, Supplier<? extends Collection<String>> live) {
    this.self = self;
    this.live = live;
  }

  /** True when this member checks {@code service}'s instances. */
  @Override
  public boolean test(ServiceKey service) {
    return self.equals(checker(service, live.get()));
  }

  /** The member of {@code members} that checks {@code service} (null when there is none). */
  static String checker(ServiceKey service, Collection<String> members) {
    String best = null;
    long bestRank = 0;
    for (String member : members) {
      long rank = rank(member, service);
      // Ties (as good as impossible in 64 bits) go to the smaller id, so that every member agrees.
      if (best == null || Long.compareUnsigned(rank, bestRank) > 0
          || (rank == bestRank && member.compareTo(best) < 0)) {
        best = member;
        bestRank = rank;
      }
    }
    return best;
  }

  /** FNV-1a over the member and the service, then a finalizer that spreads the bits (SplitMix64's). */
  static long rank(String member, ServiceKey service) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : (member + '\n' + service.namespace() + '\n' + service.group() + '\n' + service.service())
        .getBytes(StandardCharsets.UTF_8)) {
      hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
    }
    hash = (hash ^ (hash >>> 30)) * 0xbf58476d1ce4e5b9L;
    hash = (hash ^ (hash >>> 27)) * 0x94d049bb133111ebL;
    return hash ^ (hash >>> 31);
  }
}
