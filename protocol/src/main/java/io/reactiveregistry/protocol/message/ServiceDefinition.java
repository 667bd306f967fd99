package io.reactiveregistry.protocol.message;

import java.util.Map;

/** Body of {@code admin.service.create} and {@code admin.service.update}. */
public record ServiceDefinition(
    String namespace, String group, String service, Boolean ephemeral, Double protectThreshold,
    Map<String, String> metadata) {}
