package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/** Body of {@code instance.register}. */
public record Registration(
    @Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable Boolean ephemeral, @Nullable InstanceBody instance) {}
