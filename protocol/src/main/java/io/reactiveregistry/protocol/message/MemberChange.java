package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/**
 * A change of the cluster's membership ({@code admin.members.add} and {@code admin.members.remove}).
 *
 * @param member for an add: the new member, {@code id=host:port/raftPort} (its RSocket TCP address
 *     and its Raft port); an id already a member with another address is a replacement
 * @param node for a remove: the id of the member to remove
 */
public record MemberChange(@Nullable String member, @Nullable String node) {
  public static MemberChange add(String member) {
    return new MemberChange(member, null);
  }

  public static MemberChange remove(String node) {
    return new MemberChange(null, node);
  }
}
