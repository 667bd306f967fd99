package io.reactiveregistry.protocol.message;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Body of {@code admin.service.create} and {@code admin.service.update}. */
public record ServiceDefinition(
    @Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable Boolean ephemeral, @Nullable Double protectThreshold,
    @Nullable Map<String, String> metadata) {}
