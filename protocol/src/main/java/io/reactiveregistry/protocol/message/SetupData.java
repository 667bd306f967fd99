package io.reactiveregistry.protocol.message;

/** Optional SETUP data; it only labels the connection in logs, metrics and the dashboard. */
public record SetupData(String client, String version) {}
