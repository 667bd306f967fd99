package io.reactiveregistry.server.request;

/**
 * Who opens a watch, as {@code admin.service.subscribers} names it: the connection's label
 * ({@code client@address}) and the door it came through ({@code rsocket}, {@code http},
 * {@code nacos}).
 */
public record Watcher(String label, String transport) {}
