package io.reactiveregistry.server.transport;

/**
 * Per-connection limits; past them a request gets {@code LIMIT_EXCEEDED} and nothing changes.
 *
 * @param maxPayloadBytes largest request body accepted; also bounds fragment reassembly
 * @param maxSubscriptionsPerConnection open {@code service.subscribe} streams per connection
 */
public record ServerLimits(int maxPayloadBytes, int maxSubscriptionsPerConnection) {
  public static final ServerLimits DEFAULTS = new ServerLimits(1024 * 1024, 1_000);
}
