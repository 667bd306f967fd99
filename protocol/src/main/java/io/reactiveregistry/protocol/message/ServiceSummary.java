package io.reactiveregistry.protocol.message;

/**
 * One line of a {@link ServiceList}; {@code protectionTriggered}: a healthy-only view of the service
 * now shows every instance, its healthy ones being fewer than its protect threshold.
 */
public record ServiceSummary(
    String namespace, String group, String service, boolean ephemeral, int instanceCount, int healthyCount,
    boolean protectionTriggered) {}
