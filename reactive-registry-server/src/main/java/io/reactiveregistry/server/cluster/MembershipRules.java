package io.reactiveregistry.server.cluster;

import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a membership change must satisfy before the group is asked to make it, each refusal
 * naming the field and the rule (an {@link IllegalArgumentException}). Raft commits a change
 * with a majority of the old members and of the new: a change that could not reach both is
 * refused here rather than left waiting.
 */
public final class MembershipRules {
  private MembershipRules() {}

  /**
   * The member to add, checked: well formed, its addresses no other member's, and a majority of
   * the members up ({@code up}: the members this node hears from, itself included).
   */
  public static ClusterConfig.Member addition(ClusterConfig cluster, @Nullable String entry, Collection<String> up) {
    if (entry == null || entry.isBlank()) {
      throw new IllegalArgumentException("member is required: the new member as id=host:port/raftPort, for example "
          + "n4=127.0.0.1:7370/7390");
    }
    ClusterConfig.Member member = ClusterConfig.member("member", entry.strip());
    // The same entry again is the joining member asking twice (its first answer lost): allowed, a no-op.
    cluster.member(member.id()).filter(known -> !known.equals(member)).ifPresent(known -> {
      throw new IllegalArgumentException("member '" + member.id() + "' is a member already, as " + known
          + ": to move a member to another machine, start the new one under a new id and replace '" + member.id()
          + "' by it (admin.members.replace)");
    });
    for (ClusterConfig.Member other : cluster.members()) {
      boolean sameHost = other.host().equals(member.host());
      if (!other.id().equals(member.id()) && sameHost && (other.port() == member.port()
          || other.raftPort() == member.raftPort() || other.port() == member.raftPort()
          || other.raftPort() == member.port())) {
        throw new IllegalArgumentException("member '" + member.id() + "' would use a port member '" + other.id()
            + "' uses (" + other + ")");
      }
    }
    majorityUp(cluster.members().stream().map(ClusterConfig.Member::id).toList(), up, "add " + member.id());
    return member;
  }

  /** The member to remove, checked: a member, not the last one, and leaving a majority up. */
  public static String removal(ClusterConfig cluster, @Nullable String node, Collection<String> up) {
    if (node == null || node.isBlank()) {
      throw new IllegalArgumentException("node is required: the id of the member to remove");
    }
    if (cluster.member(node).isEmpty()) {
      throw new IllegalArgumentException("node '" + node + "' is not a member; the members are " + cluster);
    }
    if (cluster.members().size() == 1) {
      throw new IllegalArgumentException("node '" + node + "' is the cluster's only member: a cluster keeps at "
          + "least one");
    }
    List<String> remaining = cluster.members().stream().map(ClusterConfig.Member::id)
        .filter(id -> !id.equals(node)).toList();
    majorityUp(remaining, up, "remove " + node);
    return node;
  }

  /** A replacement: {@code member} to add, {@code node} to remove afterwards. */
  public record Replacement(ClusterConfig.Member added, String removed) {}

  /**
   * A replacement, checked: the new member under an id of its own, and each of its two changes by
   * its own rules ({@link #addition}, {@link #removal}) against the membership as it is now.
   */
  public static Replacement replacement(ClusterConfig cluster, @Nullable String node, @Nullable String entry,
      Collection<String> up) {
    if (entry != null && !entry.isBlank() && node != null
        && ClusterConfig.member("member", entry.strip()).id().equals(node.strip())) {
      throw new IllegalArgumentException("member '" + node.strip() + "' is the member to replace (node): the "
          + "replacement needs an id of its own");
    }
    String removed = removal(cluster, node, up);
    return new Replacement(addition(cluster, entry, up), removed);
  }

  private static void majorityUp(List<String> members, Collection<String> up, String change) {
    long reachable = members.stream().filter(up::contains).count();
    int majority = members.size() / 2 + 1;
    if (reachable < majority) {
      throw new IllegalArgumentException("the change (" + change + ") needs a majority of the members " + members
          + " up to commit (" + majority + " of " + members.size() + "), and only " + reachable + " are reachable "
          + "from this member " + up.stream().filter(members::contains).toList() + ": bring members back first");
    }
  }
}
