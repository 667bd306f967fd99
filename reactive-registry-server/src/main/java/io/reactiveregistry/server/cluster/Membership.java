package io.reactiveregistry.server.cluster;

import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * Who the cluster's members are now. Storage is its only writer: it follows the membership the
 * group committed (a member added, removed or moved online); everything that reaches the members
 * (replication's links, the status each member reports, where clients are sent) reads it here, or
 * follows {@link #changes()}.
 */
public final class Membership {
  private final Sinks.Many<ClusterConfig> changes = Sinks.many().replay().latest();
  private volatile ClusterConfig current;

  public Membership(ClusterConfig initial) {
    this.current = initial;
    changes.tryEmitNext(initial);
  }

  /** A fixed membership: a single server's, or a test's. */
  public static Membership of(ClusterConfig config) {
    return new Membership(config);
  }

  public ClusterConfig current() {
    return current;
  }

  /** The membership now, then each committed change of it. */
  public Flux<ClusterConfig> changes() {
    return changes.asFlux();
  }

  /** The group committed another member list; returns false when it is the one already known. */
  public synchronized boolean update(List<ClusterConfig.Member> members) {
    if (members.equals(current.members())) {
      return false;
    }
    current = current.withMembers(members);
    changes.tryEmitNext(current);
    return true;
  }
}
