package io.reactiveregistry.protocol.message;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Body of {@code admin.instance.update} and {@code admin.instance.patch}. */
public record InstanceOverride(
    @Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable InstanceBody instance, @Nullable Boolean enabled, @Nullable Double weight,
    @Nullable Map<String, String> metadata) {}
