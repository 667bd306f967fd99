package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A node's view of its cluster, in {@code server.info} and at {@code /api/v1/cluster}: its own
 * role ({@code leader}, {@code follower}, {@code candidate}, {@code starting}), the leader (absent
 * while there is none), the Raft term, the commit and applied indexes, and every member with its
 * state ({@code leader}, {@code follower}, {@code catching-up}, {@code down}, or {@code unknown}
 * when this node is not the leader and cannot tell).
 */
public record ClusterInfo(String nodeId, String role, @Nullable String leader, long term, long commitIndex,
    long appliedIndex, List<Member> members) {

  public record Member(String id, String address, String raftAddress, String state, long commitIndex) {}
}
