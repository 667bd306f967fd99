package io.reactiveregistry.protocol.message;

/** One line of a {@link ServiceList}. */
public record ServiceSummary(
    String namespace, String group, String service, boolean ephemeral, int instanceCount, int healthyCount) {}
