package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/** Body of {@code admin.trace}; a null field matches everything. */
public record TraceQuery(@Nullable String namespace, @Nullable String group, @Nullable String service) {}
