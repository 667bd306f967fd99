package io.reactiveregistry.server.replication;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One frame of a {@code cluster.replicate} stream, as JSON: {@code SNAPSHOT} (a page of the owner's
 * claims; the stream starts with them, {@code last} on the final page), {@code CHANGES} (in the
 * order made; the latest per instance) or {@code DIGEST} (what the owner's claims sum to at this
 * point of the stream, how many client connections that honour moves the owner holds and how many
 * Nacos clients' connections, with the Nacos port they reach it on: what rebalancing compares, and
 * the owner's zone).
 */
record ReplicaFrame(String type, @Nullable String node, @Nullable Long epoch, @Nullable List<Entry> entries,
    @Nullable Boolean last, @Nullable Integer count, @Nullable Long hash, @Nullable Integer connections,
    @Nullable String zone, @Nullable Integer nacosConnections, @Nullable Integer nacosPort) {
  static final String SNAPSHOT = "SNAPSHOT";
  static final String CHANGES = "CHANGES";
  static final String DIGEST = "DIGEST";

  /**
   * A claim (the instance as registered, its health, its hybrid-clock stamp) or, with {@code
   * withdrawn}, the end of one ({@code instanceId} then, and when another node's newer claim took
   * it over, that node as {@code takenOverBy} and its claim's {@code stamp}).
   */
  record Entry(String namespace, String group, String service, @Nullable String instanceId, @Nullable String ip,
      @Nullable Integer port, @Nullable String cluster, @Nullable Double weight, @Nullable Boolean enabled,
      @Nullable Map<String, String> metadata, @Nullable Boolean healthy, @Nullable Long stamp,
      @Nullable Boolean withdrawn, @Nullable String takenOverBy, @Nullable String traceparent) {}
}
