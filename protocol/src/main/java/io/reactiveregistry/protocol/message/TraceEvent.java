package io.reactiveregistry.protocol.message;

/** One element of an {@code admin.trace} stream. */
public record TraceEvent(
    Long time, Long revision, String namespace, String group, String service, String instanceId,
    String cause, String connection, Long missed) {}
