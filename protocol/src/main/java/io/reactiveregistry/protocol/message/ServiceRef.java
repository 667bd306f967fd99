package io.reactiveregistry.protocol.message;

/** Names a service. */
public record ServiceRef(String namespace, String group, String service) {}
