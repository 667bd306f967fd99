package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceDeleted;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ServiceView;
import io.reactiveregistry.server.core.TraceContext;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.core.ViewRules;
import io.reactiveregistry.server.wire.WireViews;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * All subscribers of one view (service + filter). It remembers which instances the view shows, so
 * that it can turn each core event into the view's own change: an UPSERT, a REMOVE, nothing, or a
 * fresh SNAPSHOT when the view's protection switches or the service (re)appears.
 */
final class ViewChannel {
  private final ServiceKey service;
  private final ViewFilter filter;
  private final List<SubscriberQueue> subscribers = new ArrayList<>();
  private final Set<String> visible = new HashSet<>();
  private boolean serviceExists;
  private boolean protectionTriggered;
  private @Nullable OutboundEvent lastSnapshot;
  private long lastSnapshotRevision;
  private final SnapshotEncoder snapshots = new SnapshotEncoder();

  private final String node;

  ViewChannel(ServiceKey service, ViewFilter filter, String node) {
    this.service = service;
    this.filter = filter;
    this.node = node;
  }

  ServiceKey service() {
    return service;
  }

  ViewFilter filter() {
    return filter;
  }

  List<SubscriberQueue> subscribers() {
    return subscribers;
  }

  /**
   * A snapshot of the view now, and the channel's state reset to match it. Subscribers that ask
   * at the same revision (a reconnect storm of watchers) share one snapshot, encoded once: nothing
   * has changed anywhere in between, so neither has the view nor the channel's state.
   */
  OutboundEvent snapshot(RegistryReads registry) {
    long revision = registry.revision();
    if (lastSnapshot == null || lastSnapshotRevision != revision) {
      ServiceView view = reset(registry);
      ServiceEvent message = ServiceEvent.snapshot(WireViews.snapshot(view), node);
      lastSnapshot = OutboundEvent.encodedBy(message, () -> snapshots.encode(message, view.instances()));
      lastSnapshotRevision = revision;
    }
    return lastSnapshot;
  }

  /** The channel's state reset to the view now, which it returns. */
  ServiceView reset(RegistryReads registry) {
    ServiceView view = registry.view(service, filter);
    serviceExists = view.exists();
    protectionTriggered = view.protectionTriggered();
    visible.clear();
    for (InstanceView instance : view.instances()) {
      visible.add(instance.instanceId());
    }
    return view;
  }

  /** Turns one command's events for this service into what the view's subscribers must see. */
  List<OutboundEvent> apply(List<RegistryEvent> events, RegistryReads registry) {
    List<OutboundEvent> out = new ArrayList<>(events.size());
    ServiceDeleted deletion = lastDeletion(events);
    if (!registry.exists(service)) {
      if (serviceExists && deletion != null) {
        out.add(new OutboundEvent(ServiceEvent.serviceDeleted(deletion.revision())));
      }
      serviceExists = false;
      protectionTriggered = false;
      visible.clear();
      return out;
    }
    if (deletion != null && serviceExists) {
      out.add(new OutboundEvent(ServiceEvent.serviceDeleted(deletion.revision())));
    }
    boolean triggered = registry.protectionTriggered(service, filter);
    if (!serviceExists || deletion != null || triggered != protectionTriggered) {
      // The view starts over: the service appeared, or protection switched on or off.
      OutboundEvent snapshot = snapshot(registry);
      TraceContext trace = firstTrace(events);
      out.add(trace == null ? snapshot : new OutboundEvent(snapshot.message(), trace));
      return out;
    }
    for (RegistryEvent event : events) {
      if (event instanceof InstanceUpserted upserted) {
        InstanceView instance = upserted.instance();
        if (ViewRules.visible(instance, filter, triggered)) {
          visible.add(instance.instanceId());
          out.add(new OutboundEvent(ServiceEvent.upsert(event.revision(), WireViews.instance(instance)), event.trace()));
        } else if (visible.remove(instance.instanceId())) {
          out.add(new OutboundEvent(ServiceEvent.remove(event.revision(), instance.instanceId()), event.trace()));
        }
      } else if (event instanceof InstanceRemoved removed) {
        if (visible.remove(removed.instance().instanceId())) {
          out.add(new OutboundEvent(ServiceEvent.remove(event.revision(), removed.instance().instanceId()),
              event.trace()));
        }
      }
    }
    return out;
  }

  private static @Nullable TraceContext firstTrace(List<RegistryEvent> events) {
    for (RegistryEvent event : events) {
      if (event.trace() != null) {
        return event.trace();
      }
    }
    return null;
  }

  private static ServiceDeleted lastDeletion(List<RegistryEvent> events) {
    ServiceDeleted last = null;
    for (RegistryEvent event : events) {
      if (event instanceof ServiceDeleted deleted) {
        last = deleted;
      }
    }
    return last;
  }
}
