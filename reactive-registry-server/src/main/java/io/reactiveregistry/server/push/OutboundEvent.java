package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;

/**
 * One event on its way to the subscribers of a view. Encoded once, on first send, and the bytes
 * shared by every subscriber; encoding happens outside the registry's monitor.
 */
final class OutboundEvent {
  private final ServiceEvent message;
  /** When the change was turned into this event, for push latency; 0 for one sent again later. */
  private final long createdAtNanos;
  private volatile byte[] encoded;

  OutboundEvent(ServiceEvent message) {
    this(message, System.nanoTime());
  }

  private OutboundEvent(ServiceEvent message, long createdAtNanos) {
    this.message = message;
    this.createdAtNanos = createdAtNanos;
  }

  /**
   * An event sent again, long after its change (to a subscriber that resumes): not a measure of
   * push latency, which it would inflate by up to the history's age.
   */
  static OutboundEvent replayed(ServiceEvent message) {
    return new OutboundEvent(message, 0);
  }

  /** When the change was turned into this event (nanoTime), for push latency; 0 when not timed. */
  long createdAtNanos() {
    return createdAtNanos;
  }

  public ServiceEvent message() {
    return message;
  }

  /** The JSON bytes. A race may encode twice; both results are equal, so that is harmless. */
  public byte[] bytes() {
    byte[] bytes = encoded;
    if (bytes == null) {
      bytes = JsonCodec.json().encode(message);
      encoded = bytes;
    }
    return bytes;
  }
}
