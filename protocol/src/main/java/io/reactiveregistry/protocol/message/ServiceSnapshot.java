package io.reactiveregistry.protocol.message;

import java.util.List;

/** A view of a service at a revision. */
public record ServiceSnapshot(
    String namespace,
    String group,
    String service,
    boolean ephemeral,
    long revision,
    boolean protectionTriggered,
    List<InstanceBody> instances) {}
