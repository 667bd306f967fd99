package io.reactiveregistry.server.transport;

/**
 * Per-connection limits; past them a request gets {@code LIMIT_EXCEEDED} and nothing changes.
 *
 * @param maxPayloadBytes largest request body accepted; also bounds fragment reassembly
 * @param maxSubscriptionsPerConnection open {@code service.subscribe} streams per connection
 * @param maxOutboundBacklogBytes bytes that may wait to be sent to a peer that is not reading
 *     before its connection is closed
 */
public record ServerLimits(int maxPayloadBytes, int maxSubscriptionsPerConnection, int maxOutboundBacklogBytes) {
  public static final ServerLimits DEFAULTS = new ServerLimits(1024 * 1024, 1_000, 32 * 1024 * 1024);
}
