package io.reactiveregistry.server.runtime;

import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.DurableChange.Subject;
import io.reactiveregistry.server.core.Failure;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.core.Outcome.Refused;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.RegistryException;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.ReplicaChange;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.TraceContext;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.push.DrainLoop;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.push.SubscriberQueue;
import io.reactiveregistry.server.storage.CommittedEntries;
import io.reactiveregistry.server.storage.DurableStore;
import io.reactiveregistry.server.storage.StorageUnavailableException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The single-writer discipline around the core: every command, and the fan-out of its events to
 * the push hub, runs under one monitor, so events reach subscribers in revision order and a
 * snapshot never overlaps the events after it. Its durable changes are queued for storage under
 * the same monitor, so the log holds them in the order the core decided them. Critical sections
 * are short and never do I/O; network emission and disk writes happen after the monitor is
 * released, on other threads. A plain monitor (rather than a
 * {@code ReentrantLock}) because a contended monitor spins briefly in the JVM instead of parking
 * an event-loop thread.
 */
public final class RegistryRuntime {
  private static final Logger log = LoggerFactory.getLogger(RegistryRuntime.class);
  /**
   * Revisions are reserved in storage this many ahead of use, so a restarted server continues
   * above every revision a client may have seen, ephemeral changes' included (only durable changes
   * are in the log). A new block is reserved when half of the current one is used: its write has
   * half a block of changes' time to commit before revisions could pass what storage holds.
   */
  static final long REVISION_BLOCK = 1_000_000;

  private final Object monitor = new Object();
  private final Registry registry;
  private final PushHub hub;
  private final List<Consumer<List<RegistryEvent>>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<List<ReplicaChange>>> claimListeners = new CopyOnWriteArrayList<>();
  private final DurableStore store;
  /** This node's durable writes the log has not committed yet (in a cluster only). */
  private final PendingWrites pending = new PendingWrites();
  /** Where a failed write is put back: off storage's threads, and never inside the command that wrote it. */
  private static final Executor PUT_BACK = task -> Schedulers.boundedElastic().schedule(task);
  /** Revisions up to this one may be handed out: storage holds it (or will, once its write commits). */
  private long reservedUpTo;

  /** A runtime whose durable changes are kept in memory only. */
  public RegistryRuntime(Registry registry, PushHub hub) {
    this(registry, hub, DurableStore.IN_MEMORY);
  }

  public RegistryRuntime(Registry registry, PushHub hub, DurableStore store) {
    this.registry = registry;
    this.hub = hub;
    this.store = store;
  }
  /**
   * Completes once this node holds every durable change the cluster had committed when it was
   * called: a read after it sees every write acknowledged before it began, on any member.
   */
  public CompletableFuture<Void> caughtUp() {
    return store.catchUp().handle(RegistryRuntime::answered);
  }

  /**
   * A backup file of every durable value as committed when it was asked for, to restore with
   * {@code --restore-from}; refused ({@code NOT_FOUND}) on a server that keeps nothing on disk.
   */
  public CompletableFuture<byte[]> backup() {
    return store.backup().handle(RegistryRuntime::answered);
  }

  /** Adds a member to the cluster, answered with the members once the change is committed. */
  public CompletableFuture<List<ClusterConfig.Member>> addMember(ClusterConfig.Member member) {
    return store.addMember(member).handle(RegistryRuntime::answered);
  }

  /** Removes a member from the cluster, answered with the members once the change is committed. */
  public CompletableFuture<List<ClusterConfig.Member>> removeMember(String id) {
    return store.removeMember(id).handle(RegistryRuntime::answered);
  }

  /** Storage's answer, its refusal as the core's (which the edges answer from one table). */
  private static <T> T answered(T value, Throwable error) {
    if (error == null) {
      return value;
    }
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof StorageUnavailableException storage) {
      Refused refused = refused(storage);
      throw new RegistryException(refused.failure(), refused.message());
    }
    if (cause instanceof UnsupportedOperationException unsupported) {
      throw new RegistryException(Failure.NOT_FOUND, unsupported.getMessage());
    }
    throw new CompletionException(cause);
  }


  /**
   * Applies a command now and returns its outcome; its events are published to subscribers and
   * listeners in revision order, and its durable changes, if any, are queued for storage in the
   * same order, but nothing waits for them. For commands nobody answers (heartbeats, a closed
   * connection, the lifecycle's passes).
   */
  public Outcome execute(Command command) {
    return apply(command, false).outcome;
  }

  /**
   * Applies a command and answers it when its answer may be given: at once when what it changes
   * lives in memory only, and otherwise ({@link Registry#answeredDurably}, asked under the monitor
   * just before the command runs) once its durable changes are committed — or, when it made none
   * (an identical re-registration, say), once everything queued before it is. The change
   * is visible to readers and subscribers as soon as it is applied. When storage cannot take a
   * write, the outcome is {@link Refused} ({@code STORAGE_BEHIND} or {@code STORAGE_FAILED}), and
   * a durable command is refused before it changes anything.
   */
  public Submitted submit(Command command) {
    Applied applied = apply(command, true);
    if (applied.durable == null) {
      return new Submitted(CompletableFuture.completedFuture(applied.outcome), false);
    }
    return new Submitted(applied.durable.handle((ignored, error) -> {
      if (error == null) {
        return applied.outcome;
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (cause instanceof StorageUnavailableException storage) {
        return refused(storage);
      }
      throw new CompletionException(cause);
    }), true);
  }

  /**
   * A submitted command's answer, and whether it waits for storage: a durable command's future may
   * complete before its submitter looks at it, so whether it is done says nothing about the way it took.
   */
  public record Submitted(CompletableFuture<Outcome> outcome, boolean durable) {
  }

  /**
   * Rebuilds durable state at start, before any connection or subscription exists. {@code revision}
   * is the highest revision storage holds: the last durable change's, or the last reservation's.
   */
  public void restore(Collection<DurableChange> values, long revision) {
    synchronized (monitor) {
      registry.restore(values, revision);
      reservedUpTo = revision;
    }
  }

  /**
   * Reserves the next block of revisions in storage; the future completes once the reservation is
   * durable. Called at start, before the ports open, so that no revision handed out after a restart
   * can be handed out again after the next one.
   */
  public CompletableFuture<Void> reserveRevisions() {
    synchronized (monitor) {
      return reserve();
    }
  }

  private CompletableFuture<Void> reserve() {
    reservedUpTo = registry.revision() + REVISION_BLOCK;
    return store.append(List.of(), reservedUpTo);
  }

  private record Applied(Outcome outcome, CompletableFuture<Void> durable, Collection<SubscriberQueue> woken) {}

  private Applied apply(Command command, boolean answered) {
    Applied applied;
    synchronized (monitor) {
      applied = applyLocked(command, answered);
    }
    SubscriberQueue.wakeAll(applied.woken);
    if (log.isTraceEnabled()) {
      log.trace("{} -> {}", command, applied.outcome);
    }
    return applied;
  }

  /** Applies a command under the monitor; the subscribers it woke are drained after the monitor is released. */
  private Applied applyLocked(Command command, boolean answered) {
    Outcome outcome;
    CompletableFuture<Void> durable;
    Collection<SubscriberQueue> woken;
    boolean answeredDurably = answered && registry.answeredDurably(command);
    try {
      outcome = answeredDurably ? applyIfWritable(command) : registry.apply(command);
    } finally {
      // Queued under the monitor, so storage sees changes in the order the core decided them.
      List<DurableChange> changes = registry.takeDurableChanges();
      durable = changes.isEmpty() ? (answeredDurably ? store.barrier() : null) : append(changes, traceOf(command));
      if (registry.revision() > reservedUpTo - REVISION_BLOCK / 2) {
        reserve(); // a failed write marks storage failed; nothing waits for it here
      }
      List<ReplicaChange> claims = registry.takeReplicaChanges();
      if (!claims.isEmpty()) {
        for (Consumer<List<ReplicaChange>> listener : claimListeners) {
          listener.accept(claims);
        }
      }
      List<RegistryEvent> events = registry.takeEvents();
      woken = hub.publish(events, registry);
      if (!events.isEmpty()) {
        for (Consumer<List<RegistryEvent>> listener : listeners) {
          listener.accept(events);
        }
      }
    }
    return new Applied(outcome, outcome instanceof Refused ? null : durable, woken);
  }

  /**
   * Queues changes for storage. In a cluster the write is tracked until the log commits it, and
   * if it fails, what it changed here is put back to what the log holds ({@link PendingWrites}).
   */
  private CompletableFuture<Void> append(List<DurableChange> changes, @Nullable TraceContext trace) {
    if (!store.replicated()) {
      return store.append(changes, registry.revision());
    }
    long writeId = pending.add(changes);
    CompletableFuture<Void> durable = store.append(writeId, changes, registry.revision(), trace);
    // Asynchronously: a write refused at once must not re-enter the command that made it.
    durable.whenCompleteAsync((ignored, error) -> {
      if (error != null) {
        putBack(writeId);
      }
    }, PUT_BACK);
    return durable;
  }

  /** The trace a command was made in, under whoever it acts for; null for none. */
  private static @Nullable TraceContext traceOf(Command command) {
    if (command instanceof Command.Traced traced) {
      return traced.trace();
    }
    return command instanceof Command.ActingFor acting ? traceOf(acting.command()) : null;
  }

  /** A write of this node failed: the subjects it changed here return to what the log holds. */
  private void putBack(long writeId) {
    Applied applied;
    synchronized (monitor) {
      List<Subject> subjects = pending.failed(writeId);
      if (subjects.isEmpty()) {
        return;
      }
      applied = applyLocked(new Command.ApplyCommitted(committedOrRemoved(subjects), false), false);
    }
    SubscriberQueue.wakeAll(applied.woken);
  }

  /** The committed value of each subject, or its removal when the log holds none, in an order to apply. */
  private List<DurableChange> committedOrRemoved(List<Subject> subjects) {
    List<DurableChange> changes = new ArrayList<>(store.committedValues(subjects));
    Set<Subject> valued = new HashSet<>();
    changes.forEach(value -> valued.add(value.subject()));
    for (Subject subject : subjects) {
      if (!valued.contains(subject)) {
        changes.add(new DurableChange.Removed(subject));
      }
    }
    return DurableChange.inApplyOrder(changes);
  }

  /**
   * Follows the log of a cluster's group: each entry another member wrote is applied here (its
   * subjects that this node is writing itself keep this node's value, which the log will put
   * after them); this node's own entries are already applied.
   */
  public CommittedEntries follower() {
    return new CommittedEntries() {
      @Override
      public void committed(List<DurableChange> changes, List<TraceContext> traces, boolean own, long firstWrite,
          long lastWrite) {
        if (changes.isEmpty()) {
          return;
        }
        Set<SubscriberQueue> woken = new HashSet<>();
        synchronized (monitor) {
          if (own && (lastWrite == 0 || pending.committed(firstWrite, lastWrite))) {
            return;
          }
          // Applied in runs of changes made in the same trace (most entries: one run, no trace), so
          // that what each run changes here (its events, its pushes) is part of its own trace.
          List<DurableChange> run = new ArrayList<>(changes.size());
          TraceContext runTrace = null;
          for (int i = 0; i < changes.size(); i++) {
            DurableChange change = changes.get(i);
            if (pending.inFlight(change.subject())) {
              continue;
            }
            TraceContext trace = traces.isEmpty() ? null : traces.get(i);
            if (!run.isEmpty() && !Objects.equals(trace, runTrace)) {
              woken.addAll(applyCommitted(run, runTrace));
              run = new ArrayList<>();
            }
            run.add(change);
            runTrace = trace;
          }
          if (!run.isEmpty()) {
            woken.addAll(applyCommitted(run, runTrace));
          }
        }
        SubscriberQueue.wakeAll(woken);
      }

      private Collection<SubscriberQueue> applyCommitted(List<DurableChange> run, @Nullable TraceContext trace) {
        Command apply = new Command.ApplyCommitted(run, false);
        return applyLocked(trace == null ? apply : new Command.Traced(trace, apply), false).woken;
      }

      @Override
      public void replaced(List<DurableChange> values) {
        Applied applied;
        synchronized (monitor) {
          applied = applyLocked(new Command.ApplyCommitted(values, true), false);
        }
        SubscriberQueue.wakeAll(applied.woken);
      }
    };
  }

  /** Refused before anything changes when storage cannot take the write. */
  private Outcome applyIfWritable(Command command) {
    try {
      store.checkWritable();
    } catch (StorageUnavailableException e) {
      return refused(e);
    }
    return registry.apply(command);
  }

  /** Storage's failure as the core's, so that the edges answer it from one table and know no storage type. */
  private static Refused refused(StorageUnavailableException storage) {
    // Storage logged what failed, once; the client reads the message.
    Failure failure = switch (storage.reason()) {
      case BUSY -> Failure.STORAGE_BEHIND;
      case NO_QUORUM -> Failure.UNAVAILABLE;
      case FAILED -> Failure.STORAGE_FAILED;
    };
    return new Refused(failure, storage.getMessage());
  }

  /** Reads the core's state consistently. */
  public <T> T read(Function<RegistryReads, T> query) {
    synchronized (monitor) {
      return query.apply(registry);
    }
  }

  /**
   * A stream of JSON-encoded {@code ServiceEvent}s: the view's snapshot, then its changes. Demand
   * is honoured; cancelling it releases the subscription.
   */
  public Flux<byte[]> subscribe(ServiceKey service, ViewFilter filter) {
    return subscribe(service, filter, null);
  }

  /**
   * The same stream, resumed after {@code resume} when the hub's history still holds what came
   * after it (then without a snapshot); see {@link PushHub#open}.
   */
  public Flux<byte[]> subscribe(ServiceKey service, ViewFilter filter, PushHub.@Nullable Resume resume) {
    return subscribe(service, filter, resume, null);
  }

  /**
   * The same stream, its events written from {@code drainer} (the subscriber's connection's event
   * loop) rather than from the thread that made each change; null: from that thread.
   */
  public Flux<byte[]> subscribe(ServiceKey service, ViewFilter filter, PushHub.@Nullable Resume resume,
      @Nullable DrainLoop drainer) {
    return subscribe(service, filter, resume, drainer, false);
  }

  /**
   * The same stream; with {@code coalesce}, the events pending together when the subscriber is
   * drained (it was behind, or a burst of changes came between two of its drains) go as one
   * {@code BATCH}, superseded changes left out.
   */
  public Flux<byte[]> subscribe(ServiceKey service, ViewFilter filter, PushHub.@Nullable Resume resume,
      @Nullable DrainLoop drainer, boolean coalesce) {
    return Flux.create(sink -> {
      SubscriberQueue queue;
      synchronized (monitor) {
        queue = hub.open(service, filter, resume, drainer, coalesce, registry, this::resync);
      }
      queue.attach(sink);
      sink.onDispose(() -> {
        synchronized (monitor) {
          hub.close(queue);
        }
      });
      sink.onRequest(n -> queue.drain());
    });
  }

  /** Observes every command's events (audit trail, metrics); called under the monitor: be quick. */
  public void addListener(Consumer<List<RegistryEvent>> listener) {
    listeners.add(listener);
  }

  /**
   * Observes the changes to this node's claims (the ephemeral instances its connections own), in
   * the order they were made: what the cluster's peers copy. Called under the monitor: be quick.
   */
  public void addClaimListener(Consumer<List<ReplicaChange>> listener) {
    claimListeners.add(listener);
  }

  /** Ends every subscription stream normally (onComplete): a clean end for subscribers at shutdown. */
  public void completeSubscriptions() {
    synchronized (monitor) {
      hub.completeAll();
    }
  }

  /** Subscriptions that asked to resume: those that did ({@code made}), and those that got a snapshot. */
  public long resumes(boolean made) {
    return hub.resumes(made);
  }

  /** Changes kept for subscribers that resume, for all services. */
  public int resumeHistorySize() {
    synchronized (monitor) {
      return hub.resumeHistorySize();
    }
  }

  public int subscriberCount() {
    synchronized (monitor) {
      return hub.subscriberCount();
    }
  }

  private void resync(SubscriberQueue queue) {
    synchronized (monitor) {
      hub.resync(queue, registry);
    }
  }
}
