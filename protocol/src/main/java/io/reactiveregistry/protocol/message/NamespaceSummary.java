package io.reactiveregistry.protocol.message;

/** One line of a {@link NamespaceList}: its services, their instances, and how many of those are healthy. */
public record NamespaceSummary(String namespace, int services, int instances, int healthyInstances) {}
