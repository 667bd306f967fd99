package io.reactiveregistry.server.core;

/**
 * The last health check of a persistent instance, as the member that ran it saw it: when it
 * ended (epoch milliseconds), its verdict, how long it took, and why ({@code "connected"},
 * {@code "HTTP 503"}, {@code "connection refused"}, {@code "timed out after 2000 ms"}, a TLS
 * failure's message...).
 */
public record HealthCheck(long at, boolean healthy, long latencyMillis, String reason) {}
