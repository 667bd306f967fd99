package io.reactiveregistry.protocol.message;

/** Names one instance: its service and its {@code ip}, {@code port} and {@code cluster}. */
public record InstanceRef(String namespace, String group, String service, InstanceBody instance) {}
