package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.TraceContext;
import java.util.List;

/**
 * Told of every log entry as it is applied, in log order, on storage's apply thread: how the
 * members of a cluster learn the durable changes others decided. Quick, and never blocks on I/O.
 */
public interface CommittedEntries {

  /**
   * An entry was committed and applied. {@code own}: this process wrote it, holding its writes
   * {@code firstWrite} to {@code lastWrite} (the ids given to {@link DurableStore#append}).
   * {@code traces}: empty when no change of the entry was made in a trace; else the trace of each
   * change, in order (null for a change made in none).
   */
  void committed(List<DurableChange> changes, List<TraceContext> traces, boolean own, long firstWrite,
      long lastWrite);

  /** A snapshot from the leader replaced the whole durable state with {@code values}. */
  void replaced(List<DurableChange> values);
}
