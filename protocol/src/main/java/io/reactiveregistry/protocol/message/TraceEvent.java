package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/** One element of an {@code admin.trace} stream. */
public record TraceEvent(
    @Nullable Long time, @Nullable Long revision, @Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable String instanceId,
    @Nullable String cause, @Nullable String connection, @Nullable String principal, @Nullable String node,
    @Nullable Long missed) {}
