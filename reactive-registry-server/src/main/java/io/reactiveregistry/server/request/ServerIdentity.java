package io.reactiveregistry.server.request;

import io.reactiveregistry.server.cluster.ClusterStatus;
import java.util.function.Supplier;

/**
 * What {@code server.info} reports about this node; {@code cluster} gives its latest view of its
 * cluster (null when durable state is kept in memory only).
 */
public record ServerIdentity(String version, String nodeId, long startedAtMillis, Supplier<ClusterStatus> cluster) {}
