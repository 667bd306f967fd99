package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Answer to {@code server.info}. {@code storage} is {@code "OK"}, {@code "IN_MEMORY"} or
 * {@code "FAILED: <what failed>"} (durable writes are refused until a restart). {@code members}
 * are the cluster's member ids (this node's alone on a single server); {@code cluster} is this
 * node's view of its cluster (absent when durable state is kept in memory); {@code heartbeats}
 * what self-preservation judges by.
 */
public record ServerInfo(
    String version, int protocol, String nodeId, List<String> members, long uptimeMs, boolean selfPreservation,
    @Nullable String storage, @Nullable ClusterInfo cluster, @Nullable Heartbeats heartbeats) {

  /**
   * Self-preservation's figures over its window (60 s by default): the heartbeats expected from
   * this member's ephemeral instances and those received, per minute; the share below which it
   * turns on; whether there was enough to judge by (10 instances and 20 expected heartbeats at
   * least); whether it is enabled at all.
   */
  public record Heartbeats(double expectedPerMinute, double receivedPerMinute, double threshold, boolean judged,
      boolean enabled) {}
}
