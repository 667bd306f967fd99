package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.wire.WireViews;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * A view as a stream of whole snapshots, for doors whose clients expect the full list on every
 * change (Nacos's pushes). One feed per view, shared by all its subscribers: the view's change
 * events only wake it, and it reads the snapshot once per wake-up for everyone, so a burst of
 * changes costs one snapshot per round, not one per change per subscriber. The feed lives while
 * it has subscribers; a late subscriber starts from the latest snapshot.
 */
final class ViewFeeds {
  private final RegistryRuntime runtime;
  private final Scheduler readers;
  private final ConcurrentMap<View, Flux<ServiceSnapshot>> feeds = new ConcurrentHashMap<>();

  private record View(ServiceKey service, ViewFilter filter) {}

  /** @param readers where snapshots are read (CPU-bound work, off the event loops) */
  ViewFeeds(RegistryRuntime runtime, Scheduler readers) {
    this.runtime = runtime;
    this.readers = readers;
  }

  Flux<ServiceSnapshot> feed(ServiceKey service, ViewFilter filter) {
    View view = new View(service, filter);
    return feeds.computeIfAbsent(view, this::open);
  }

  private Flux<ServiceSnapshot> open(View view) {
    AtomicReference<Flux<ServiceSnapshot>> self = new AtomicReference<>();
    self.set(runtime.subscribe(view.service(), view.filter())
        // Events only say "changed": the newest is enough while a read is under way, because the
        // read that follows sees everything before it.
        .onBackpressureLatest()
        .publishOn(readers, 1)
        .map(changed -> runtime.read(reads -> WireViews.snapshot(reads.view(view.service(), view.filter()))))
        .distinctUntilChanged(ServiceSnapshot::revision)
        // The last subscriber gone: a new one opens a new feed (this one, if it is still mapped).
        .doFinally(signal -> feeds.remove(view, self.get()))
        .replay(1)
        .refCount());
    return self.get();
  }
}
