package io.reactiveregistry.server.push;

import io.reactiveregistry.server.core.TraceContext;
import org.jspecify.annotations.Nullable;

/** Told of each event handed to a subscriber's connection: for push latency, and a traced change's push span. */
@FunctionalInterface
public interface PushObserver {
  /**
   * @param changedAtNanos when the change became the event ({@link System#nanoTime()})
   * @param trace the span of the request that made the change, when it was traced and this push is
   *     one of the {@link OutboundEvent#TRACED_PUSHES} of it that are recorded; null otherwise
   */
  void pushed(long changedAtNanos, @Nullable TraceContext trace);
}
