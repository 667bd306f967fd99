package io.reactiveregistry.protocol.message;

/** Answer to {@code instance.register}: the instance's id and its effective heartbeat timings. */
public record RegisterResult(
    String instanceId,
    long revision,
    long heartbeatIntervalMs,
    long heartbeatTimeoutMs,
    long deleteTimeoutMs) {}
