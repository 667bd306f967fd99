package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.cluster.ClusterStatus;
import io.reactiveregistry.server.cluster.ClusterStatus.MemberStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;

/** Reads a {@link ClusterStatus} out of a Ratis division. */
final class ClusterStatuses {
  /** A member this far behind the commit index is catching up rather than in step. */
  private static final long IN_STEP = 100;

  private ClusterStatuses() {}

  static ClusterStatus of(ClusterConfig cluster, RaftServer.Division division, Duration silentMeansDown) {
    DivisionInfo info = division.getInfo();
    RaftPeerId leaderId = info.getLeaderId();
    String self = division.getId().toString();
    String leader = leaderId == null ? null : leaderId.toString();
    long commitIndex = division.getRaftLog().getLastCommittedIndex();
    Map<String, Long> commits = new HashMap<>();
    for (CommitInfoProto commit : division.getCommitInfos()) {
      commits.put(commit.getServer().getId().toStringUtf8(), commit.getCommitIndex());
    }
    // Only a leader hears from every member; it tracks when it last did.
    Map<String, Long> silentMs = new HashMap<>();
    RoleInfoProto role = info.getRoleInfoProto();
    if (info.isLeader() && role.hasLeaderInfo()) {
      for (ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
        silentMs.put(follower.getId().getId().toStringUtf8(), follower.getLastRpcElapsedTimeMs());
      }
    }
    List<MemberStatus> members = new ArrayList<>();
    if (!cluster.clustered()) { // the server alone: no addresses to tell but its own Raft port's
      members.add(new MemberStatus(self, null, division.getPeer().getAddress(), "leader", commitIndex));
    }
    for (ClusterConfig.Member member : cluster.members()) {
      long memberCommit = commits.getOrDefault(member.id(), member.id().equals(self) ? commitIndex : 0L);
      String state;
      if (member.id().equals(leader)) {
        state = "leader";
      } else if (member.id().equals(self)) {
        state = info.isFollower() && commitIndex - memberCommit <= IN_STEP ? "follower"
            : info.getCurrentRole().name().toLowerCase(Locale.ROOT);
      } else if (!info.isLeader()) {
        state = "unknown";
      } else if (silentMs.getOrDefault(member.id(), Long.MAX_VALUE) > silentMeansDown.toMillis()) {
        state = "down";
      } else {
        state = commitIndex - memberCommit > IN_STEP ? "catching-up" : "follower";
      }
      members.add(new MemberStatus(member.id(), member.address(), member.raftAddress(), state, memberCommit));
    }
    return new ClusterStatus(self, info.getCurrentRole().name().toLowerCase(Locale.ROOT), leader,
        info.getCurrentTerm(), commitIndex, info.getLastAppliedIndex(), members);
  }
}
