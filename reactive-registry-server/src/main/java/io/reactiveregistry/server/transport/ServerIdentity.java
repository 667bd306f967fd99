package io.reactiveregistry.server.transport;

/** What {@code server.info} reports about this node. */
public record ServerIdentity(String version, String nodeId, long startedAtMillis) {}
