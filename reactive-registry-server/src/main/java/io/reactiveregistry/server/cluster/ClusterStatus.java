package io.reactiveregistry.server.cluster;

import io.reactiveregistry.protocol.message.ClusterInfo;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one node knows of its cluster at one moment: its own role, the leader, the Raft term and
 * indexes, and each member's state as far as this node can tell (a leader hears from every
 * follower; a follower only from the leader).
 *
 * @param nodeId this node's id
 * @param role {@code leader}, {@code follower}, {@code candidate} (an election is running) or
 *     {@code starting}
 * @param leader the leader's id; null while there is none
 * @param term the Raft term
 * @param commitIndex the highest log index this node knows to be committed
 * @param appliedIndex the highest log index this node has applied
 * @param replication how this node follows each peer's ephemeral instances
 */
public record ClusterStatus(String nodeId, String role, String leader, long term, long commitIndex,
    long appliedIndex, List<MemberStatus> members, List<ClusterInfo.Peer> replication, Map<String, String> zones) {

  /**
   * One member. {@code state}: {@code leader}; {@code follower} (in step); {@code catching-up}
   * (reachable, behind the leader's commit index); {@code down} (the leader has not heard from it
   * within the election timeout); {@code unknown} (this node is not the leader and cannot tell).
   */
  public record MemberStatus(String id, @Nullable String address, String raftAddress, String state,
      long commitIndex) {}

  public ClusterStatus {
    members = List.copyOf(members);
    replication = List.copyOf(replication);
    zones = Map.copyOf(zones);
  }

  public ClusterStatus(String nodeId, String role, String leader, long term, long commitIndex, long appliedIndex,
      List<MemberStatus> members, List<ClusterInfo.Peer> replication) {
    this(nodeId, role, leader, term, commitIndex, appliedIndex, members, replication, Map.of());
  }

  /** Without replication figures (storage's view alone). */
  public ClusterStatus(String nodeId, String role, String leader, long term, long commitIndex, long appliedIndex,
      List<MemberStatus> members) {
    this(nodeId, role, leader, term, commitIndex, appliedIndex, members, List.of());
  }

  /** The same, with how this node follows each peer's ephemeral instances. */
  public ClusterStatus withReplication(List<ClusterInfo.Peer> peers) {
    return new ClusterStatus(nodeId, role, leader, term, commitIndex, appliedIndex, members, peers, zones);
  }

  /** The same, with the members' zones as far as this node knows them (its own, and its peers' reports). */
  public ClusterStatus withZones(Map<String, String> known) {
    return new ClusterStatus(nodeId, role, leader, term, commitIndex, appliedIndex, members, replication, known);
  }

  public static ClusterStatus starting(ClusterConfig config, String nodeId) {
    return new ClusterStatus(nodeId, "starting", null, 0, 0, 0, config.members().stream()
        .map(member -> new MemberStatus(member.id(), member.address(), member.raftAddress(), "unknown", 0))
        .toList());
  }

  /** As the contract writes it, in {@code server.info} and at {@code /api/v1/cluster}. */
  public ClusterInfo toInfo() {
    return new ClusterInfo(nodeId, role, leader, term, commitIndex, appliedIndex, members.stream()
        .map(m -> new ClusterInfo.Member(m.id(), m.address(), m.raftAddress(), m.state(), m.commitIndex(),
            zones.get(m.id())))
        .toList(), replication);
  }

  /**
   * The same, with this node called {@code id}: a single server's Raft peer has a fixed name, while
   * {@code server.info} names the server by its own node id.
   */
  public ClusterStatus callingSelf(String id) {
    if (id.equals(nodeId)) {
      return this;
    }
    return new ClusterStatus(id, role, nodeId.equals(leader) ? id : leader, term, commitIndex, appliedIndex,
        members.stream().map(m -> m.id().equals(nodeId)
            ? new MemberStatus(id, m.address(), m.raftAddress(), m.state(), m.commitIndex()) : m).toList());
  }

  public boolean leading() {
    return nodeId.equals(leader);
  }
}
