package io.reactiveregistry.server.audit;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.push.Drain;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;

/**
 * {@code admin.trace}: every change the registry makes, as JSON TraceEvents, to each subscriber
 * whose filter matches. Like subscriptions it honours demand and never buffers without bound: a
 * subscriber more than {@code maxPending} events behind loses the oldest, and is told how many in
 * one {@code {"cause": "GAP", "missed": n}} event before the ones it still has.
 */
public final class TraceHub implements Consumer<List<RegistryEvent>> {
  private final InstantSource clock;
  /** This node's id: the owner of every change but those to other nodes' copies. */
  private final String node;
  private final int maxPending;
  private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();

  private final Scheduler drainer;
  private final AuditHistory history;

  public TraceHub(InstantSource clock, String node, int maxPending, Scheduler drainer, AuditHistory history) {
    this.clock = clock;
    this.node = node;
    this.maxPending = maxPending;
    this.drainer = drainer;
    this.history = history;
  }

  /** What a trace subscriber sees; a null field matches everything. */
  public record Filter(String namespace, String group, String service) {
    boolean matches(ServiceKey key) {
      return (namespace == null || namespace.equals(key.namespace()))
          && (group == null || group.equals(key.group()))
          && (service == null || service.equals(key.service()));
    }
  }

  /** Called with each command's events, in revision order, under the registry's monitor. */
  @Override
  public void accept(List<RegistryEvent> events) {
    long now = clock.millis();
    for (RegistryEvent event : events) {
      TraceEvent traced = toTrace(event, now);
      history.add(traced);
      Traced trace = null;
      for (Subscriber subscriber : subscribers) {
        if (subscriber.filter.matches(event.service())) {
          if (trace == null) {
            trace = new Traced(traced);
          }
          subscriber.offer(trace);
        }
      }
    }
    if (subscribers.isEmpty()) {
      return;
    }
    // Called under the registry's monitor: the network writes happen elsewhere, in one hand-off for
    // every subscriber (a task each would wake a thread per change per subscriber).
    drainer.schedule(drainAll);
  }

  /** Drains every subscriber: those with nothing pending return at once. */
  private final Runnable drainAll = () -> {
    for (Subscriber subscriber : subscribers) {
      subscriber.drain();
    }
  };

  /** A trace event, encoded once for all the subscribers it goes to. */
  private static final class Traced {
    private final TraceEvent event;
    private volatile byte @Nullable [] json;

    Traced(TraceEvent event) {
      this.event = event;
    }

    byte[] json() {
      byte[] encoded = json;
      if (encoded == null) { // two drains may both encode it: the same bytes, no harm
        encoded = JsonCodec.json().encode(event);
        json = encoded;
      }
      return encoded;
    }
  }

  public Flux<byte[]> subscribe(Filter filter) {
    return Flux.create(sink -> {
      Subscriber subscriber = new Subscriber(filter, sink);
      subscribers.add(subscriber);
      sink.onDispose(() -> subscribers.remove(subscriber));
      sink.onRequest(n -> subscriber.drain());
    });
  }

  public int subscriberCount() {
    return subscribers.size();
  }

  /** The events kept ({@code admin.trace.query}). */
  public AuditHistory history() {
    return history;
  }

  private TraceEvent toTrace(RegistryEvent event, long now) {
    String instanceId = event instanceof InstanceUpserted upserted ? upserted.instance().instanceId()
        : event instanceof InstanceRemoved removed ? removed.instance().instanceId() : null;
    Owner actor = event.actor();
    return new TraceEvent(now, event.revision(), event.service().namespace(), event.service().group(),
        event.service().service(), instanceId, event.cause().name(), actor == null ? null : actor.label(),
        event.principal(), actor != null && actor.isPeer() ? actor.node() : node, null,
        event instanceof InstanceUpserted upserted && upserted.before() != null
            ? InstanceChanges.between(upserted.before(), upserted.instance()) : null,
        event instanceof InstanceUpserted upserted ? upserted.reason() : null, event.traceId());
  }

  /**
   * One trace stream: its pending events, bounded by {@code maxPending} (past it the oldest go, and
   * one GAP event says how many), emitted by a {@link Drain} as far as its demand reaches.
   */
  private final class Subscriber {
    private final Filter filter;
    private final ArrayDeque<Traced> pending = new ArrayDeque<>();
    private final Drain drain = new Drain(this::next);
    private long missed;

    Subscriber(Filter filter, FluxSink<byte[]> sink) {
      this.filter = filter;
      drain.attach(sink);
    }

    synchronized void offer(Traced event) {
      if (pending.size() >= maxPending) {
        pending.poll();
        missed++;
      }
      pending.add(event);
    }

    void drain() {
      drain.run();
    }

    /** The GAP for what was lost, if anything was, then the oldest pending event; null: none. */
    private byte @Nullable [] next() {
      Traced next;
      synchronized (this) {
        if (missed > 0) {
          next = new Traced(new TraceEvent(clock.millis(), null, null, null, null, null, "GAP", null, null, null,
              missed, null, null, null));
          missed = 0;
        } else {
          next = pending.poll();
        }
      }
      return next == null ? null : next.json();
    }
  }
}
