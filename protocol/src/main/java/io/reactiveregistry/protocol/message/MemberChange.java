package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/**
 * A change of the cluster's membership ({@code admin.members.add}, {@code admin.members.remove} and
 * {@code admin.members.replace}, which takes both).
 *
 * @param member for an add or a replacement: the new member, {@code id=host:port/raftPort} (its
 *     RSocket TCP address and its Raft port), under an id of its own
 * @param node for a remove or a replacement: the id of the member to remove
 */
public record MemberChange(@Nullable String member, @Nullable String node) {
  public static MemberChange add(String member) {
    return new MemberChange(member, null);
  }

  public static MemberChange remove(String node) {
    return new MemberChange(null, node);
  }

  public static MemberChange replace(String node, String member) {
    return new MemberChange(member, node);
  }
}
