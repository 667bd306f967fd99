package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A node's view of its cluster, in {@code server.info} and at {@code /api/v1/cluster}: its own
 * role ({@code leader}, {@code follower}, {@code candidate}, {@code starting}), the leader (absent
 * while there is none), the Raft term, the commit and applied indexes, and every member with its
 * state ({@code leader}, {@code follower}, {@code catching-up}, {@code down}, or {@code unknown}
 * when this node is not the leader and cannot tell), and how this node follows each peer's ephemeral
 * instances ({@code replication}).
 */
public record ClusterInfo(String nodeId, String role, @Nullable String leader, long term, long commitIndex,
    long appliedIndex, List<Member> members, @Nullable List<Peer> replication) {

  /** One member; {@code zone} as it was started with ({@code --zone}), absent when none or not yet known. */
  public record Member(String id, String address, String raftAddress, String state, long commitIndex,
      @Nullable String zone) {
    public Member(String id, String address, String raftAddress, String state, long commitIndex) {
      this(id, address, raftAddress, state, commitIndex, null);
    }
  }

  /**
   * This node's follow of one peer's stream of ephemeral instances: whether it is connected, the
   * peer's epoch (a new one each time it starts), the copies held, the changes this node has yet to
   * send that peer, the lag of the last change received (milliseconds, by the two clocks), and the
   * repairs anti-entropy made.
   */
  public record Peer(String node, boolean connected, long epoch, int copies, int waiting, long lagMillis,
      long repairs) {}
}
