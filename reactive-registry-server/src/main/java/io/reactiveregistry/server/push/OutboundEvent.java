package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.core.TraceContext;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One event on its way to the subscribers of a view. Encoded once, on first send, and the bytes
 * shared by every subscriber; encoding happens outside the registry's monitor.
 */
final class OutboundEvent {
  /**
   * How many of a traced change's pushes (per view) are recorded as spans: a change seen by a
   * thousand subscribers would otherwise put a thousand spans in one trace, and their cost on the
   * push path. The first ones written are recorded; the trace shows how long those took.
   */
  static final int TRACED_PUSHES = 16;
  private static final AtomicIntegerFieldUpdater<OutboundEvent> PUSH_SPANS =
      AtomicIntegerFieldUpdater.newUpdater(OutboundEvent.class, "pushSpans");

  private final ServiceEvent message;
  /** The span of the request that made the change, when it was traced. */
  private final @Nullable TraceContext trace;
  private volatile int pushSpans;
  /** When the change was turned into this event, for push latency; 0 for one sent again later. */
  private final long createdAtNanos;
  private volatile byte[] encoded;
  /** Writes the bytes instead of encoding the message whole; null: the message is encoded. */
  private final @Nullable Supplier<byte[]> encoder;

  OutboundEvent(ServiceEvent message) {
    this(message, System.nanoTime(), null);
  }

  /** An event of a change made in {@code trace} (null: not traced). */
  OutboundEvent(ServiceEvent message, @Nullable TraceContext trace) {
    this(message, System.nanoTime(), trace);
  }

  private OutboundEvent(ServiceEvent message, long createdAtNanos, @Nullable TraceContext trace) {
    this(message, createdAtNanos, trace, null);
  }

  private OutboundEvent(ServiceEvent message, long createdAtNanos, @Nullable TraceContext trace,
      @Nullable Supplier<byte[]> encoder) {
    this.message = message;
    this.createdAtNanos = createdAtNanos;
    this.trace = trace;
    this.encoder = encoder;
  }

  /**
   * An event whose bytes {@code encoder} writes, when it is first sent (outside the registry's
   * monitor), instead of encoding {@code message} whole: a snapshot from its instances' kept JSON.
   */
  static OutboundEvent encodedBy(ServiceEvent message, Supplier<byte[]> encoder) {
    return new OutboundEvent(message, System.nanoTime(), null, encoder);
  }

  /**
   * An event sent again, long after its change (to a subscriber that resumes): not a measure of
   * push latency, which it would inflate by up to the history's age.
   */
  static OutboundEvent replayed(ServiceEvent message) {
    return new OutboundEvent(message, 0, null);
  }

  /** When the change was turned into this event (nanoTime), for push latency; 0 when not timed. */
  long createdAtNanos() {
    return createdAtNanos;
  }

  /** The change's trace for one more push span, while fewer than {@link #TRACED_PUSHES} were; else null. */
  @Nullable TraceContext traceOfPush() {
    TraceContext traced = trace;
    if (traced == null || pushSpans >= TRACED_PUSHES || PUSH_SPANS.getAndIncrement(this) >= TRACED_PUSHES) {
      return null;
    }
    return traced;
  }

  public ServiceEvent message() {
    return message;
  }

  /** The JSON bytes. A race may encode twice; both results are equal, so that is harmless. */
  public byte[] bytes() {
    byte[] bytes = encoded;
    if (bytes == null) {
      bytes = encoder != null ? encoder.get() : JsonCodec.json().encode(message);
      encoded = bytes;
    }
    return bytes;
  }
}
