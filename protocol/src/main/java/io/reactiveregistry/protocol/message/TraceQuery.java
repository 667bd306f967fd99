package io.reactiveregistry.protocol.message;

/** Body of {@code admin.trace}; a null field matches everything. */
public record TraceQuery(String namespace, String group, String service) {}
