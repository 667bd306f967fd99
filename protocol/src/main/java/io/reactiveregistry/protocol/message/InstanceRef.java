package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/** Names one instance: its service and its {@code ip}, {@code port} and {@code cluster}. */
public record InstanceRef(@Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable InstanceBody instance) {}
