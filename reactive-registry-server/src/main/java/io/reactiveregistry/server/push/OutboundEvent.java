package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;

/**
 * One event on its way to the subscribers of a view. Encoded once, on first send, and the bytes
 * shared by every subscriber; encoding happens outside the registry's monitor.
 */
final class OutboundEvent {
  private final ServiceEvent message;
  private final long createdAtNanos = System.nanoTime();
  private volatile byte[] encoded;

  OutboundEvent(ServiceEvent message) {
    this.message = message;
  }

  /** When the change was turned into this event, for push latency. */
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
