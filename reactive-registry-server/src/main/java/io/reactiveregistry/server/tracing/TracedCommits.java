package io.reactiveregistry.server.tracing;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.TraceContext;
import io.reactiveregistry.server.storage.CommittedEntries;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows the Raft log for {@code applying} and records, for each traced request whose durable
 * changes another member committed, a {@code raft.apply} span around their application here: the
 * same trace on every member, from the request on the member that served it to the pushes of the
 * members that follow its log. Entries this member wrote, and entries without a trace (most), pass
 * through untouched.
 */
public final class TracedCommits implements CommittedEntries {
  private final CommittedEntries applying;
  private final Tracing tracing;

  public TracedCommits(CommittedEntries applying, Tracing tracing) {
    this.applying = applying;
    this.tracing = tracing;
  }

  @Override
  public void committed(List<DurableChange> changes, List<TraceContext> traces, boolean own, long firstWrite,
      long lastWrite) {
    if (traces.isEmpty() || own) {
      applying.committed(changes, traces, own, firstWrite, lastWrite);
      return;
    }
    Map<TraceContext, Tracing.Applying> spans = new LinkedHashMap<>();
    List<TraceContext> inSpans = new ArrayList<>(traces.size());
    for (TraceContext trace : traces) {
      Tracing.Applying span = trace == null ? null : spans.computeIfAbsent(trace, tracing::applying);
      inSpans.add(span == null ? trace : span.context());
    }
    try {
      applying.committed(changes, inSpans, own, firstWrite, lastWrite);
    } finally {
      spans.values().forEach(Tracing.Applying::end);
    }
  }

  @Override
  public void replaced(List<DurableChange> values) {
    applying.replaced(values);
  }
}
