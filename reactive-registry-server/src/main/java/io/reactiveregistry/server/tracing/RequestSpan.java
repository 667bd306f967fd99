package io.reactiveregistry.server.tracing;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.server.core.TraceContext;
import org.jspecify.annotations.Nullable;

/**
 * One request's span, and the stages of its work as child spans. Stages are recorded once they
 * are over, from the {@link System#nanoTime()} readings the request layer takes anyway, so that
 * a request that is not traced costs nothing more than {@link #NONE}'s empty calls.
 */
public interface RequestSpan {
  /** What every call returns when tracing is off, or the request is not sampled: does nothing. */
  RequestSpan NONE = new RequestSpan() {
    @Override
    public void stage(String name, long startNanos, long endNanos) {}

    @Override
    public void end(@Nullable ErrorCode refusedWith) {}

    @Override
    public @Nullable TraceContext context() {
      return null;
    }
  };

  /** A stage of the work ({@code decode}, {@code commit}) between two {@link System#nanoTime()} readings. */
  void stage(String name, long startNanos, long endNanos);

  /** Ends the request's span: served, or refused with {@code refusedWith}. */
  void end(@Nullable ErrorCode refusedWith);

  /**
   * This request's span as a parent (its trace and span ids): what the changes it makes carry, so
   * that their replication and pushes are its children; null when it is not recorded.
   */
  @Nullable TraceContext context();
}
