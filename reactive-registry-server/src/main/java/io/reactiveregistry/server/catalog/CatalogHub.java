package io.reactiveregistry.server.catalog;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.push.Drain;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.wire.ServicePages;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * {@code catalog.subscribe}: the set of services as a stream. A subscriber gets a {@code SNAPSHOT}
 * of the services it covers (namespace, optionally a group and a name prefix) with their summaries,
 * then an {@code UPSERT} when a service appears or its summary changes (instance count, healthy
 * count, protection, type) and a {@code REMOVE} when it goes, in revision order.
 *
 * <p>Like service views it honours demand and never buffers without bound: what waits for a
 * subscriber is at most one change per service (a later one replaces an earlier one, and moves to
 * the end, so the stream stays in revision order), and a subscriber with more than
 * {@code maxPending} services waiting is sent one fresh {@code SNAPSHOT} instead. A subscriber
 * resumes after the last revision it saw ({@code sinceRevision} and {@code node}) while this server
 * still holds every catalog change since in its history of {@code historySize} changes: a
 * {@code RESUMED}, then what changed meanwhile; otherwise a fresh {@code SNAPSHOT}.
 *
 * <p>Summaries are read under the runtime's monitor, where its listeners are called, so a
 * subscription's snapshot and its first change are one consistent cut.
 */
public final class CatalogHub implements Consumer<List<RegistryEvent>> {
  private static final JsonCodec json = JsonCodec.json();

  /** What a subscriber covers: a namespace, and a group and a name prefix when not null. */
  public record Filter(String namespace, @Nullable String group, @Nullable String prefix) {
    boolean matches(ServiceKey key) {
      return namespace.equals(key.namespace()) && (group == null || group.equals(key.group()))
          && (prefix == null || key.service().startsWith(prefix));
    }
  }

  private final RegistryRuntime runtime;
  private final String node;
  private final int maxPending;
  private final int historySize;
  private final Scheduler drainer;
  private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
  // The fields below are used under the runtime's monitor only.
  /**
   * Each service's summary as last published while someone subscribes: a change that leaves it
   * the same (an instance's metadata, say) is no catalog event.
   */
  private final Map<ServiceKey, ServiceSummary> published = new HashMap<>();
  /**
   * Which service each of the last {@code historySize} changes touched, oldest first, for resumed
   * subscriptions; kept whether or not anyone subscribes (a lone subscriber resumes after being
   * away), at the cost of a key and a revision per change. A resume reads the summaries then.
   */
  private final ArrayDeque<Touch> history = new ArrayDeque<>();
  /** The revision of the newest change the history let go: a resume from before it needs a snapshot. */
  private long forgottenUpTo;

  private record Touch(ServiceKey service, long revision) {}

  /**
   * @param drainer where subscribers are drained after a change (not under the monitor, not on
   *     the thread that made the change)
   */
  public CatalogHub(RegistryRuntime runtime, String node, int maxPending, int historySize, Scheduler drainer) {
    this.runtime = runtime;
    this.node = node;
    this.maxPending = maxPending;
    this.historySize = historySize;
    this.drainer = drainer;
    runtime.addListener(this);
  }

  /** One service's change: its summary now, or null when it is gone; encoded once for every subscriber. */
  private static final class Change {
    final ServiceKey service;
    final long revision;
    final @Nullable ServiceSummary summary;
    private volatile byte @Nullable [] json;

    Change(ServiceKey service, long revision, @Nullable ServiceSummary summary) {
      this.service = service;
      this.revision = revision;
      this.summary = summary;
    }

    byte[] json() {
      byte[] encoded = json;
      if (encoded == null) { // two drains may both encode it: the same bytes, no harm
        encoded = CatalogHub.json.encode(summary == null
            ? CatalogEvent.remove(revision, service.group(), service.service())
            : CatalogEvent.upsert(revision, ServicePages.wire(summary)));
        json = encoded;
      }
      return encoded;
    }
  }

  /** Called with each command's events, in revision order, under the runtime's monitor. */
  @Override
  public void accept(List<RegistryEvent> events) {
    // The services touched, each with the revision of its last event, in the order of those (a
    // command's one event, most often: no map to build for it).
    Map<ServiceKey, Long> touched;
    if (events.size() == 1) {
      touched = Map.of(events.get(0).service(), events.get(0).revision());
    } else {
      touched = new LinkedHashMap<>();
      for (RegistryEvent event : events) {
        touched.remove(event.service());
        touched.put(event.service(), event.revision());
      }
    }
    touched.forEach((service, revision) -> remember(new Touch(service, revision)));
    if (subscribers.isEmpty()) {
      published.clear(); // nobody to tell: summaries are read again for the next subscriber
      return;
    }
    boolean offered = runtime.read(reads -> {
      boolean any = false;
      for (Map.Entry<ServiceKey, Long> service : touched.entrySet()) {
        ServiceSummary now = reads.summary(service.getKey()).orElse(null);
        if (Objects.equals(now, published.get(service.getKey()))) {
          continue; // an instance's metadata, say: the summary is the same
        }
        if (now == null) {
          published.remove(service.getKey());
        } else {
          published.put(service.getKey(), now);
        }
        Change change = new Change(service.getKey(), service.getValue(), now);
        for (Subscriber subscriber : subscribers) {
          if (subscriber.filter.matches(change.service)) {
            subscriber.offer(change);
            any = true;
          }
        }
      }
      return any;
    });
    if (offered) {
      drainer.schedule(drainAll); // one hand-off for every subscriber, off the monitor
    }
  }

  private final Runnable drainAll = () -> {
    for (Subscriber subscriber : subscribers) {
      subscriber.drain.run();
    }
  };

  private void remember(Touch touch) {
    history.addLast(touch);
    if (history.size() > historySize) {
      forgottenUpTo = history.removeFirst().revision();
    }
  }

  /**
   * A subscription's stream of encoded {@link CatalogEvent}s: a {@code SNAPSHOT}, or when
   * {@code sinceRevision} of {@code sinceNode} can be resumed here, a {@code RESUMED} and what
   * changed since; then the changes.
   */
  public Flux<byte[]> subscribe(Filter filter, @Nullable Long sinceRevision, @Nullable String sinceNode) {
    return Flux.create(sink -> {
      Subscriber subscriber = runtime.read(reads -> {
        Subscriber opened = new Subscriber(filter);
        if (sinceRevision != null && node.equals(sinceNode) && sinceRevision >= forgottenUpTo
            && sinceRevision <= reads.revision()) {
          opened.first = json.encode(CatalogEvent.resumed(sinceRevision, node));
          // Each service missed, as it is now, at its last change's revision, in the order of those.
          Map<ServiceKey, Long> missed = new LinkedHashMap<>();
          for (Touch touch : history) {
            if (touch.revision() > sinceRevision && filter.matches(touch.service())) {
              missed.remove(touch.service());
              missed.put(touch.service(), touch.revision());
            }
          }
          missed.forEach((service, revision) -> {
            ServiceSummary now = reads.summary(service).orElse(null);
            if (now != null) {
              published.put(service, now);
            }
            opened.offer(new Change(service, revision, now));
          });
        } else {
          opened.first = snapshot(reads, filter);
        }
        subscribers.add(opened);
        return opened;
      });
      subscriber.drain.attach(sink);
      sink.onDispose(() -> subscribers.remove(subscriber));
      sink.onRequest(n -> subscriber.drain.run());
    });
  }

  public int subscriberCount() {
    return subscribers.size();
  }

  /** Under the runtime's monitor: the services now, which are also what every subscriber was told of them. */
  private byte[] snapshot(RegistryReads reads, Filter filter) {
    List<ServiceSummary> services = reads.list(filter.namespace(), filter.group(), filter.prefix());
    services.forEach(service -> published.put(service.service(), service));
    return json.encode(CatalogEvent.snapshot(filter.namespace(), reads.revision(),
        services.stream().map(ServicePages::wire).toList(), node));
  }

  /**
   * One catalog stream: its first frame (the snapshot, or RESUMED), then at most one waiting change
   * per service, in revision order; past {@code maxPending} services, a fresh snapshot instead.
   * Offered to under the runtime's monitor, drained by one thread at a time.
   */
  private final class Subscriber {
    final Filter filter;
    final Drain drain = new Drain(this::next);
    private final LinkedHashMap<ServiceKey, Change> pending = new LinkedHashMap<>();
    private byte @Nullable [] first;
    private boolean snapshotDue;

    Subscriber(Filter filter) {
      this.filter = filter;
    }

    synchronized void offer(Change change) {
      if (snapshotDue) {
        return; // the snapshot, read when it is sent, will hold this change
      }
      pending.remove(change.service); // a later change replaces it, at the end: revision order holds
      if (pending.size() >= maxPending) {
        pending.clear();
        snapshotDue = true;
        first = null;
        return;
      }
      pending.put(change.service, change);
    }

    /** The next frame: the first one, a snapshot that is due, or the oldest waiting change; null: none. */
    private byte @Nullable [] next() {
      synchronized (this) {
        if (first != null) {
          byte[] frame = first;
          first = null;
          return frame;
        }
        if (!snapshotDue) {
          var oldest = pending.entrySet().iterator();
          if (!oldest.hasNext()) {
            return null;
          }
          Change change = oldest.next().getValue();
          oldest.remove();
          return change.json();
        }
      }
      // Read under the runtime's monitor, where changes are offered: none is lost or sent twice.
      return runtime.read(reads -> {
        synchronized (this) {
          snapshotDue = false;
          pending.clear();
        }
        return snapshot(reads, filter);
      });
    }
  }
}
