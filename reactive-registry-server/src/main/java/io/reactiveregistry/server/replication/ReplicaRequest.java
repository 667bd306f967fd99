package io.reactiveregistry.server.replication;

import org.jspecify.annotations.Nullable;

/** The body of a {@code cluster.replicate} request: which node asks (for the owner's logs and status). */
public record ReplicaRequest(@Nullable String node) {}
