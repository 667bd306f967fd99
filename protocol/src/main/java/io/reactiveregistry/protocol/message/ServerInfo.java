package io.reactiveregistry.protocol.message;

import java.util.List;

/** Answer to {@code server.info}. */
public record ServerInfo(
    String version, int protocol, String nodeId, List<String> members, long uptimeMs, boolean selfPreservation) {}
