package io.reactiveregistry.client;

import io.reactiveregistry.client.ConnectionManager.Link;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.Query;
import io.reactiveregistry.protocol.message.ServiceEvent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Watched views. One server subscription per distinct view however many callers watch it; the
 * latest view is replayed to late subscribers; after the last subscriber leaves the subscription
 * is kept for a grace period, then released. On every new connection the view is subscribed
 * again, resuming from the last revision applied (the server sends only what was missed, or a
 * fresh snapshot when it no longer can); while disconnected the last view is repeated,
 * flagged stale, and an empty snapshot right after a reconnect is held back (see
 * {@link #holdBackEmpty}). A refused first subscription ends the watch with the refusal (the
 * caller asked for something the server does not serve it); a refused re-subscription (a server
 * still starting, over a limit, a token being renewed) is retried with the reconnect backoff on
 * that connection, the last view repeated meanwhile, unless the server says the service is not
 * found.
 */
final class Watches {
  /** What is watched: a service and which part of it. */
  record Key(ServiceName service, Selection selection) {
    List<String> clusters() {
      return selection.clusters();
    }

    boolean healthyOnly() {
      return selection.healthyOnly();
    }
  }

  private final ConnectionManager connections;
  private final Duration grace;
  private final Duration settle;
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final Map<Key, Flux<ServiceView>> shared = new ConcurrentHashMap<>();
  private final Map<Key, Boolean> live = new ConcurrentHashMap<>();
  /**
   * Each view's latest, kept after its watch ends: a watch opened again while no server is
   * reachable starts from it (stale), and so do {@code choose} and the client's other reads.
   * Bounded: past {@link #MAX_KEPT_VIEWS} views it starts again empty.
   */
  private final Map<Key, ServiceView> lastViews = new ConcurrentHashMap<>();
  private static final int MAX_KEPT_VIEWS = 10_000;

  /** Views kept on disk for a start while no server can be reached; null: none. */
  private final @Nullable ViewCache cache;
  /** Whether an empty view may replace a non-empty one only when the service was deleted. */
  private final boolean pushEmptyProtection;

  Watches(ConnectionManager connections, Duration grace, Duration settle, Duration minBackoff, Duration maxBackoff,
      @Nullable ViewCache cache, boolean pushEmptyProtection) {
    this.connections = connections;
    this.cache = cache;
    this.pushEmptyProtection = pushEmptyProtection;
    this.grace = grace;
    this.settle = settle;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
  }

  /** How many distinct views currently hold a server subscription. */
  int count() {
    return live.size();
  }

  Flux<ServiceView> watch(Key key) {
    return shared.computeIfAbsent(key, this::share);
  }

  /**
   * The latest view of {@code key} this client has seen, if any, else the one kept on disk (stale);
   * up to date only while connected.
   */
  @Nullable ServiceView last(Key key) {
    ServiceView seen = lastViews.get(key);
    if (seen == null && cache != null) {
      seen = cache.read(key);
      if (seen != null) {
        lastViews.putIfAbsent(key, seen);
      }
    }
    return seen;
  }

  /** Raw events across reconnects: each new connection starts with a fresh SNAPSHOT. */
  Flux<ServiceEvent> events(Key key) {
    return connections.links().switchMap(link -> link.isPresent() ? stream(link.get(), key) : Flux.never());
  }

  private Flux<ServiceView> share(Key key) {
    AtomicReference<ServiceView> last = new AtomicReference<>(last(key));
    return Flux.defer(() -> {
      FoldedState state = new FoldedState(key.service());
      return connections.links().switchMap(link -> {
        if (link.isEmpty()) {
          ServiceView seen = last.get();
          return seen == null ? Flux.<ServiceView>never() : Flux.just(seen.asStale()).concatWith(Flux.never());
        }
        // Resumes from the last revision applied: only what was missed comes, or a fresh snapshot.
        Flux<ServiceEvent> events = Flux.defer(() -> stream(link.get(), key, state.resumePoint(), true));
        ServiceView seen = last.get();
        if (seen != null) { // a re-subscription: a refusal is retried (see above), the stale view kept meanwhile
          events = events.retryWhen(resubscriptions());
        }
        Flux<ServiceView> fresh = fold(state, events);
        if (pushEmptyProtection) { // an empty view replaces a non-empty one only when the service was deleted
          fresh = fresh.filter(view -> !view.instances().isEmpty() || state.deleted() || last.get() == null
              || last.get().instances().isEmpty());
        }
        return seen == null || seen.instances().isEmpty() ? fresh : holdBackEmpty(fresh);
      }).doOnNext(view -> {
        last.set(view);
        if (lastViews.size() >= MAX_KEPT_VIEWS && !lastViews.containsKey(key)) {
          lastViews.clear();
        }
        lastViews.put(key, view);
        if (cache != null && !view.stale()) {
          cache.write(key, view);
        }
      });
    })
        .doOnSubscribe(s -> live.put(key, Boolean.TRUE))
        .doFinally(signal -> live.remove(key))
        .replay(1)
        .refCount(1, grace);
  }

  /**
   * After a reconnect the server may be one that restarted and has not yet heard from the clients
   * that are about to register again; its empty snapshot would empty every caller's view. So an
   * empty view that would replace a non-empty one is held back for the settle window: the first
   * non-empty view passes at once; an empty one is shown only if the service is still empty when
   * the window ends (then it is the truth). The stale view stays meanwhile.
   */
  private Flux<ServiceView> holdBackEmpty(Flux<ServiceView> fresh) {
    return Flux.defer(() -> {
      AtomicBoolean settled = new AtomicBoolean();
      AtomicReference<ServiceView> heldBack = new AtomicReference<>();
      Flux<ServiceView> passed = fresh.filter(view -> {
        if (settled.get() || !view.instances().isEmpty()) {
          settled.set(true);
          return true;
        }
        heldBack.set(view);
        return false;
      });
      Flux<ServiceView> release = Mono.delay(settle).flatMapMany(tick -> {
        ServiceView held = heldBack.get();
        return settled.compareAndSet(false, true) && held != null ? Flux.just(held) : Flux.empty();
      });
      return Flux.merge(passed, release);
    });
  }

  /** A refused re-subscription, tried again with the reconnect backoff unless the service is not found. */
  private Retry resubscriptions() {
    return Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).jitter(0.5)
        .filter(error -> !(error instanceof RegistryErrorException refusal && refusal.code() == ErrorCode.NOT_FOUND));
  }

  private Flux<ServiceEvent> stream(Link link, Key key) {
    return stream(link, key, null, false);
  }

  /**
   * The view's events on one connection. A watch asks the server to coalesce: it only needs the
   * view, and events pending together (a storm of registrations) then come as one frame.
   */
  private Flux<ServiceEvent> stream(Link link, Key key, @Nullable ResumePoint from, boolean coalesce) {
    Query fresh = new Query(key.service().namespace(), key.service().group(), key.service().service(),
        key.clusters(), key.healthyOnly(), key.selection().wireSelector());
    Query resumed = from == null ? fresh : fresh.resumingAfter(from.revision(), from.node());
    Query query = coalesce ? resumed.coalescing() : resumed;
    return link.socket().requestStream(Wire.payload(Route.SERVICE_SUBSCRIBE.routeName(), query))
        .map(payload -> Wire.decode(payload, ServiceEvent.class))
        // A refusal ends the watch with a typed error; a lost connection waits for the next one.
        .onErrorResume(error -> Wire.isRefusal(error) ? Flux.error(Wire.translate(error)) : Flux.never())
        .concatWith(Flux.never());
  }

  /**
   * Applies every event to the subscription's state, and builds views from that state only as
   * fast as they are taken: during a burst (a reconnect storm, a deploy) intermediate views are
   * skipped and the next view shows everything up to the latest event. Each view is complete and
   * correct at its revision; nothing is shown before the subscription's snapshot.
   */
  private static Flux<ServiceView> fold(FoldedState state, Flux<ServiceEvent> events) {
    return events
        .filter(state::apply)
        .onBackpressureLatest()
        .publishOn(Schedulers.parallel(), 1)
        .map(latest -> state.view());
  }

  /** Where a watch resumes: after this revision of that server's stream. */
  record ResumePoint(long revision, String node) {}

  /**
   * The instances of one watch, folded from its events across connections; applied and read
   * under its own lock.
   */
  private static final class FoldedState {
    private final ServiceName service;
    private final Map<String, InstanceBody> instances = new LinkedHashMap<>();
    private boolean snapshotSeen;
    private boolean protection;
    /** Whether the service was deleted, and has not had an instance since. */
    private boolean deleted;
    private long revision;
    private @Nullable String node;

    /** Where the next subscription resumes; null before the first snapshot (or from an old server). */
    synchronized @Nullable ResumePoint resumePoint() {
      return snapshotSeen && node != null ? new ResumePoint(revision, node) : null;
    }

    FoldedState(ServiceName service) {
      this.service = service;
    }

    /** Applies an event; true when there is a view to show. */
    synchronized boolean apply(ServiceEvent event) {
      switch (event.type()) {
        case ServiceEvent.BATCH -> {
          for (ServiceEvent each : event.events()) {
            apply(each);
          }
        }
        case ServiceEvent.SNAPSHOT -> {
          instances.clear();
          for (InstanceBody instance : event.instances()) {
            instances.put(instance.instanceId(), instance);
          }
          protection = Boolean.TRUE.equals(event.protectionTriggered());
          snapshotSeen = true;
          node = event.node();
        }
        case ServiceEvent.RESUMED -> {
          // What was missed follows; meanwhile the view as it was is current again.
        }
        case ServiceEvent.UPSERT -> {
          instances.put(event.instance().instanceId(), event.instance());
          deleted = false;
        }
        case ServiceEvent.REMOVE -> instances.remove(event.instanceId());
        case ServiceEvent.SERVICE_DELETED -> {
          instances.clear();
          deleted = true;
        }
        default -> {
          return false; // a type added by a newer server
        }
      }
      revision = event.revision();
      return snapshotSeen;
    }

    synchronized boolean deleted() {
      return deleted && instances.isEmpty();
    }

    synchronized ServiceView view() {
      return new ServiceView(service, revision, protection, List.copyOf(instances.values()), false);
    }
  }

  static Key key(ServiceName service, @Nullable List<String> clusters, boolean healthyOnly) {
    return new Key(service, new Selection(clusters, healthyOnly, ""));
  }
}
