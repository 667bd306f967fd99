package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/** Optional SETUP data; it only labels the connection in logs, metrics and the dashboard. */
public record SetupData(@Nullable String client, @Nullable String version) {}
