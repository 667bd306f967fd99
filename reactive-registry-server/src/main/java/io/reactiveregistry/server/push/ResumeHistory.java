package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceDeleted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceUpdated;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.ServiceDefinition;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.core.ViewRules;
import io.reactiveregistry.server.wire.WireViews;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The recent changes of every service someone subscribes to, kept so that a subscriber that lost
 * its connection resumes from the last revision it saw and receives only what it missed, instead
 * of a snapshot of the whole view (what turns a restart of many clients into a storm).
 *
 * <p>A service's history starts when its first subscriber opens it (from the revision then) and is
 * forgotten once it has had no subscriber for {@link Limits#maxAge()}. Changes older than that, or
 * beyond {@link Limits#eventsPerService()} for one service or {@link Limits#totalEvents()} for all
 * of them (oldest first), are dropped: a resume from before them gets a snapshot. Each kept change
 * holds the core's event (its instance view is shared with the registry while it is current).
 *
 * <p>Like the hub, every method runs under the registry's monitor.
 */
public final class ResumeHistory {
  /**
   * @param eventsPerService changes kept for one service
   * @param maxAge how long a change is kept, and a service's history once it has no subscriber
   * @param totalEvents changes kept for all services together: the memory bound
   */
  public record Limits(int eventsPerService, Duration maxAge, int totalEvents) {
    public static final Limits DEFAULTS = new Limits(1_000, Duration.ofMinutes(5), 50_000);

    public Limits {
      if (eventsPerService < 0 || totalEvents < 0 || maxAge.isNegative()) {
        throw new IllegalArgumentException("history limits cannot be negative: " + eventsPerService + " per service, "
            + totalEvents + " in all, " + maxAge);
      }
    }
  }

  private final Limits limits;
  private final InstantSource clock;
  private final String node;
  private final Map<ServiceKey, ServiceHistory> services = new HashMap<>();
  /** Every kept change of every service, oldest first: what the age and total limits drop from. */
  private final ArrayDeque<Entry> all = new ArrayDeque<>();
  /** Histories without subscribers, by when they lost their last one (oldest first). */
  private final LinkedHashMap<ServiceKey, Long> idleSince = new LinkedHashMap<>();

  public ResumeHistory(Limits limits, InstantSource clock, String node) {
    this.limits = limits;
    this.clock = clock;
    this.node = node;
  }

  /** The node whose revisions the streams carry: what a resume must name. */
  public String node() {
    return node;
  }

  /** How many changes are kept, for all services. */
  public int size() {
    return all.size();
  }

  private static final class Entry {
    final ServiceHistory owner;
    final RegistryEvent event;
    final long atMillis;
    boolean dropped;

    /**
     * The change as a view sees it — its instance upserted, or gone (an instance a healthy-only
     * view no longer shows) — each encoded once for every subscriber that resumes past it.
     */
    @Nullable OutboundEvent upsert;
    @Nullable OutboundEvent remove;

    Entry(ServiceHistory owner, RegistryEvent event, long atMillis) {
      this.owner = owner;
      this.event = event;
      this.atMillis = atMillis;
    }

    OutboundEvent upsert(InstanceView instance) {
      if (upsert == null) {
        upsert = OutboundEvent.replayed(ServiceEvent.upsert(event.revision(), WireViews.instance(instance)));
      }
      return upsert;
    }

    OutboundEvent remove(InstanceView instance) {
      if (remove == null) {
        remove = OutboundEvent.replayed(ServiceEvent.remove(event.revision(), instance.instanceId()));
      }
      return remove;
    }
  }

  private static final class ServiceHistory {
    final ArrayDeque<Entry> entries = new ArrayDeque<>();
    /** Every change after this revision is kept. */
    long coveredFrom;
    /** The last revision at which every view of the service started over (it appeared or went). */
    long lastReset;
    /** The last revision at which the definition changed (the protection threshold with it). */
    long lastDefinitionChange;
    boolean existed;
    int subscribers;

    ServiceHistory(long coveredFrom, boolean existed) {
      this.coveredFrom = coveredFrom;
      this.existed = existed;
    }
  }

  /** A subscriber opened a view of {@code service}: its changes are kept from now on. */
  void subscribed(ServiceKey service, RegistryReads registry) {
    ServiceHistory history = services.get(service);
    if (history == null) {
      history = new ServiceHistory(registry.revision(), registry.exists(service));
      services.put(service, history);
    }
    history.subscribers++;
    idleSince.remove(service);
  }

  /** A subscriber of {@code service} left; with the last one, the history starts to age out. */
  void unsubscribed(ServiceKey service) {
    ServiceHistory history = services.get(service);
    if (history != null && --history.subscribers == 0) {
      idleSince.put(service, clock.millis());
    }
  }

  /** Keeps one command's changes to the services being followed. */
  void record(List<RegistryEvent> events, RegistryReads registry) {
    if (services.isEmpty()) {
      return;
    }
    long now = clock.millis();
    ServiceKey lastService = null;
    ServiceHistory touched = null;
    for (RegistryEvent event : events) {
      if (!event.service().equals(lastService)) {
        settle(touched, lastService, registry);
        lastService = event.service();
        touched = services.get(lastService);
      }
      if (touched == null) {
        continue;
      }
      Entry entry = new Entry(touched, event, now);
      touched.entries.add(entry);
      all.add(entry);
      if (event instanceof ServiceDeleted) {
        touched.lastReset = event.revision();
      } else if (event instanceof ServiceUpdated) {
        touched.lastDefinitionChange = event.revision();
      }
      if (touched.entries.size() > limits.eventsPerService()) {
        drop(touched.entries.peekFirst());
      }
    }
    settle(touched, lastService, registry);
    trim(now);
  }

  /** After a command's changes to one service: whether the service appeared or went. */
  private static void settle(@Nullable ServiceHistory history, @Nullable ServiceKey service, RegistryReads registry) {
    if (history == null) {
      return;
    }
    boolean exists = registry.exists(service);
    if (exists != history.existed) {
      history.existed = exists;
      history.lastReset = history.entries.isEmpty() ? registry.revision() : history.entries.peekLast().event.revision();
    }
  }

  private void drop(Entry oldest) {
    ServiceHistory owner = oldest.owner;
    owner.entries.pollFirst();
    owner.coveredFrom = oldest.event.revision();
    oldest.dropped = true;
  }

  /** Drops what is too old or beyond the total, and the histories idle for too long. */
  private void trim(long now) {
    long oldestKept = now - limits.maxAge().toMillis();
    Entry head;
    while ((head = all.peekFirst()) != null && (all.size() > limits.totalEvents() || head.atMillis < oldestKept)) {
      all.pollFirst();
      if (!head.dropped) {
        drop(head);
      }
    }
    Iterator<Map.Entry<ServiceKey, Long>> idle = idleSince.entrySet().iterator();
    while (idle.hasNext()) {
      Map.Entry<ServiceKey, Long> next = idle.next();
      if (next.getValue() >= oldestKept) {
        break;
      }
      idle.remove();
      ServiceHistory gone = services.remove(next.getKey());
      for (Entry entry : gone.entries) {
        entry.dropped = true; // still in all until it ages out there: the total counts it meanwhile
      }
    }
  }

  /**
   * What a subscriber of {@code service} through {@code filter} missed after {@code since}: the
   * stream's first events, beginning with {@code RESUMED}; or null when the history cannot tell
   * (the subscriber then starts over with a snapshot). Call before the subscriber is opened.
   */
  @Nullable List<OutboundEvent> missedSince(ServiceKey service, ViewFilter filter, long since, @Nullable String from,
      RegistryReads registry) {
    trim(clock.millis());
    ServiceHistory history = services.get(service);
    if (history == null || !node.equals(from) || since < history.coveredFrom || since > registry.revision()
        || history.lastReset > since) {
      return null;
    }
    if (filter.healthyOnly() && (history.lastDefinitionChange > since || protectable(service, registry))) {
      // Protection may have switched in between, showing or hiding instances nobody changed:
      // the history does not hold enough to tell, a snapshot does.
      return null;
    }
    List<Entry> missed = new ArrayList<>();
    Iterator<Entry> newestFirst = history.entries.descendingIterator();
    while (newestFirst.hasNext()) {
      Entry entry = newestFirst.next();
      if (entry.event.revision() <= since) {
        break;
      }
      missed.add(entry);
    }
    List<OutboundEvent> out = new ArrayList<>(missed.size() + 1);
    out.add(OutboundEvent.replayed(ServiceEvent.resumed(since, node)));
    // Whether the view shows an instance, as far as the replay knows: before an instance's first
    // missed change it does not, so leaving the view then is a REMOVE the subscriber may not need.
    Map<String, Boolean> shown = new HashMap<>();
    for (int i = missed.size() - 1; i >= 0; i--) {
      Entry entry = missed.get(i);
      RegistryEvent event = entry.event;
      InstanceView instance = event instanceof InstanceUpserted upserted ? upserted.instance()
          : event instanceof InstanceRemoved removed ? removed.instance() : null;
      if (instance == null || !filter.clusters().isEmpty() && !filter.clusters().contains(instance.cluster())) {
        continue;
      }
      // Not skipped when the selector does not match: a change of metadata takes an instance out
      // of a selector's view, which is a REMOVE (and one the subscriber may not need otherwise).
      boolean visible = event instanceof InstanceUpserted && ViewRules.visible(instance, filter, false);
      Boolean before = shown.put(instance.instanceId(), visible);
      if (visible) {
        out.add(entry.upsert(instance));
      } else if (!Boolean.FALSE.equals(before)) {
        out.add(entry.remove(instance));
      }
    }
    return out;
  }

  /** Whether a healthy-only view of the service may ever switch protection on. */
  private static boolean protectable(ServiceKey service, RegistryReads registry) {
    return registry.service(service).map(ServiceDefinition::protectThreshold).orElse(0.0) > 0;
  }
}
