package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Answer to {@code server.info}. {@code storage} is {@code "OK"}, {@code "IN_MEMORY"} or
 * {@code "FAILED: <what failed>"} (durable writes are refused until a restart). {@code members}
 * are the cluster's member ids (this node's alone on a single server); {@code cluster} is this
 * node's view of its cluster (absent when durable state is kept in memory).
 */
public record ServerInfo(
    String version, int protocol, String nodeId, List<String> members, long uptimeMs, boolean selfPreservation,
    @Nullable String storage, @Nullable ClusterInfo cluster) {}
