package io.reactiveregistry.server.cluster;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * This node's latest view of its cluster, read from Raft every half second off the event loops (so
 * that {@code server.info} and {@code /api/v1/cluster} answer from memory), with a log line when
 * the leader changes and when a member goes down or comes back, and meters: the role, the commit
 * and applied indexes, leader changes, and whether each member is reachable.
 */
public final class ClusterView {
  private static final Logger log = LoggerFactory.getLogger(ClusterView.class);
  static final Duration POLL = Duration.ofMillis(500);

  private final Supplier<ClusterStatus> source;
  private final String nodeId;
  private final Counter leaderChanges;
  private volatile ClusterStatus latest;

  public ClusterView(ClusterConfig config, String nodeId, Supplier<ClusterStatus> source, MeterRegistry meters) {
    this.source = source;
    this.nodeId = nodeId;
    this.latest = ClusterStatus.starting(config, nodeId);
    this.leaderChanges = Counter.builder("registry.cluster.leader.changes")
        .description("times this node saw the cluster's leader change").register(meters);
    Gauge.builder("registry.cluster.leader", this, view -> view.latest.leading() ? 1 : 0)
        .description("1 while this node leads the cluster's Raft group").register(meters);
    Gauge.builder("registry.cluster.commit.index", this, view -> view.latest.commitIndex())
        .description("the highest Raft log index this node knows to be committed").register(meters);
    Gauge.builder("registry.cluster.applied.index", this, view -> view.latest.appliedIndex())
        .description("the highest Raft log index this node has applied").register(meters);
    List<String> memberIds = config.clustered() ? config.members().stream().map(ClusterConfig.Member::id).toList()
        : List.of(nodeId); // a single server is the one member of its group
    for (String member : memberIds) {
      Gauge.builder("registry.cluster.member.reachable", this, view -> view.reachable(member))
          .description("1 while the member is in step or catching up, 0 when down, -1 when this node cannot tell")
          .tag("member", member).register(meters);
    }
  }

  /** The latest view; never null. */
  public ClusterStatus status() {
    return latest;
  }

  /** Reads the cluster's state now and then until disposed. */
  public Disposable start(Scheduler blocking) {
    return Flux.interval(Duration.ZERO, POLL, blocking)
        .onBackpressureDrop()
        .subscribe(tick -> refresh(), error -> log.error("cluster view stopped", error));
  }

  void refresh() {
    ClusterStatus next;
    try {
      next = source.get();
    } catch (RuntimeException e) {
      log.debug("cluster state not readable now", e);
      return;
    }
    next = next.callingSelf(nodeId);
    ClusterStatus previous = latest;
    latest = next;
    if (!Objects.equals(previous.leader(), next.leader())) {
      leaderChanges.increment();
      if (next.leader() == null) {
        log.warn("cluster has no leader (term {}): durable writes wait for an election, and are refused if "
            + "a majority of members cannot be reached", next.term());
      } else {
        log.info("cluster leader is now {} (term {}){}", next.leader(), next.term(),
            next.leading() ? ": this node" : "");
      }
    }
    Map<String, String> before = states(previous);
    for (ClusterStatus.MemberStatus member : next.members()) {
      String was = before.get(member.id());
      if ("down".equals(member.state()) && !"down".equals(was)) {
        log.warn("cluster member {} ({}) is down: the leader has not heard from it", member.id(), member.raftAddress());
      } else if ("down".equals(was) && !"down".equals(member.state()) && !"unknown".equals(member.state())) {
        log.info("cluster member {} ({}) is back ({})", member.id(), member.raftAddress(), member.state());
      }
    }
  }

  private double reachable(String id) {
    String state = states(latest).get(id);
    return state == null || state.equals("unknown") ? -1 : state.equals("down") ? 0 : 1;
  }

  private static Map<String, String> states(ClusterStatus status) {
    Map<String, String> states = new HashMap<>();
    status.members().forEach(member -> states.put(member.id(), member.state()));
    return states;
  }
}
