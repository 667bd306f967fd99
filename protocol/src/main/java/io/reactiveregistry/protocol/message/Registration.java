package io.reactiveregistry.protocol.message;

/** Body of {@code instance.register}. */
public record Registration(
    String namespace, String group, String service, Boolean ephemeral, InstanceBody instance) {}
