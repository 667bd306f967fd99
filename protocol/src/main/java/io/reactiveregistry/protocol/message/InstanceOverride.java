package io.reactiveregistry.protocol.message;

import java.util.Map;

/** Body of {@code admin.instance.update} and {@code admin.instance.patch}. */
public record InstanceOverride(
    String namespace, String group, String service, InstanceBody instance, Boolean enabled, Double weight,
    Map<String, String> metadata) {}
