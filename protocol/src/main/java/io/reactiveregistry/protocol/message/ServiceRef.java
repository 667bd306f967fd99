package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/** Names a service. */
public record ServiceRef(@Nullable String namespace, @Nullable String group, @Nullable String service) {}
