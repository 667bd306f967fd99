package io.reactiveregistry.server.core;

import io.reactiveregistry.server.core.Outcome.BatchRegistered;
import io.reactiveregistry.server.core.Outcome.Counted;
import io.reactiveregistry.server.core.Outcome.Deregistered;
import io.reactiveregistry.server.core.Outcome.HealthRecorded;
import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import io.reactiveregistry.server.core.Outcome.Overridden;
import io.reactiveregistry.server.core.Outcome.Refused;
import io.reactiveregistry.server.core.Outcome.Registered;
import io.reactiveregistry.server.core.Outcome.ServiceDefined;
import io.reactiveregistry.server.core.Outcome.ServiceRemoved;
import io.reactiveregistry.server.core.Results.InstanceCounts;
import io.reactiveregistry.server.core.Results.NamespaceSummary;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The registry's state machine: it applies {@link Command}s and answers reads. A command either
 * is {@link Refused} having changed nothing, or applies its changes and records one {@link
 * RegistryEvent} per change, each with the next revision ({@link #takeEvents()}); changes to what
 * must survive a restart are also recorded as {@link DurableChange}s ({@link #takeDurableChanges()}).
 *
 * <p>It sequences its parts, each one concern: the {@link ServiceCatalog} (services, their
 * cleanup, quotas), the {@link Instances} (registration, heartbeats, release, verdicts), the
 * {@link Ownerships} (which connection owns what), the {@link Overrides} (operators' changes to
 * instances), {@link Expiry} (deadlines and self-preservation) and the {@link ChangeLog}.
 *
 * <p>Not thread-safe: one writer at a time (the runtime's monitor).
 */
public final class Registry implements RegistryReads {
  private final InstantSource clock;
  private final LifecycleConfig lifecycle;
  private final ChangeLog log = new ChangeLog();
  private final ServiceCatalog services;
  private final Overrides overrides = new Overrides(log);
  private final Expiry expiry;
  private final Instances instances;
  private final Replicas replicas;

  public Registry(InstantSource clock, RegistryConfig config) {
    this(clock, config, LifecycleConfig.DEFAULTS, new Random());
  }

  public Registry(InstantSource clock, RegistryConfig config, LifecycleConfig lifecycle, RandomGenerator random) {
    this(clock, config, lifecycle, random, "local");
  }

  /** @param node this node's id in its cluster: peers' copies are ordered against its own claims by it */
  public Registry(InstantSource clock, RegistryConfig config, LifecycleConfig lifecycle, RandomGenerator random,
      String node) {
    this.clock = clock;
    this.lifecycle = lifecycle;
    this.services = new ServiceCatalog(config.quotas(), log);
    this.expiry = new Expiry(lifecycle, random);
    HybridClock stamps = new HybridClock(clock);
    this.instances = new Instances(clock, config, services, new Ownerships(config.maxInstancesPerOwner(), config.quotas().maxHttpInstances()),
        overrides, expiry, log, stamps);
    this.replicas = new Replicas(node, stamps, instances, clock);
  }

  // ---------------------------------------------------------------- commands

  /**
   * Applies a command: its changes are recorded as events and durable changes; a refusal is
   * returned as {@link Refused}, having changed nothing.
   */
  public Outcome apply(Command command) {
    try {
      return applyOrThrow(command);
    } catch (RegistryException refused) {
      return new Refused(refused.failure(), refused.getMessage());
    }
  }

  // Java 17 has no pattern switch; the chain is ordered by how often each command arrives.
  private Outcome applyOrThrow(Command command) {
    if (command instanceof Command.ActingFor c) {
      log.actingFor(c.principal());
      try {
        return applyOrThrow(c.command());
      } finally {
        log.actingFor(null);
      }
    } else if (command instanceof Command.Traced c) {
      log.tracing(c.trace());
      try {
        return applyOrThrow(c.command());
      } finally {
        log.tracing(null);
      }
    } else if (command instanceof Command.ApplyCommitted c) {
      return new Counted(c.replacing() ? replaceCommitted(c.changes()) : applyCommitted(c.changes()));
    } else if (command instanceof Command.ApplyReplica c) {
      return new Counted(replicas.apply(c.node(), c.changes(), c.replacing(), c.keptUntilMillis()));
    } else if (command instanceof Command.Heartbeat c) {
      return heartbeat(c.owner(), c.service(), c.instance());
    } else if (command instanceof Command.Renew c) {
      return instances.renew(c.owner(), c.service(), c.instanceId());
    } else if (command instanceof Command.HeartbeatAll c) {
      return new Counted(heartbeatAll(c.owner()));
    } else if (command instanceof Command.Register c) {
      return register(c.owner(), c.service(), c.ephemeral(), c.instance());
    } else if (command instanceof Command.BatchRegister c) {
      return batchRegister(c.owner(), c.service(), c.instances());
    } else if (command instanceof Command.Deregister c) {
      return instances.deregister(c.owner(), c.service(), c.instanceId());
    } else if (command instanceof Command.Release c) {
      return new Counted(release(c.owner()));
    } else if (command instanceof Command.DropReplica c) {
      return new Counted(replicas.drop(c.node()));
    } else if (command instanceof Command.Expire) {
      return new Counted(expire());
    } else if (command instanceof Command.CleanUp c) {
      return new Counted(cleanUp(c.durable()));
    } else if (command instanceof Command.Stalled c) {
      return new Counted(stalled(c.millis()));
    } else if (command instanceof Command.RecordHealth c) {
      return new HealthRecorded(healthChecked(c.service(), c.instanceId(), c.check()));
    } else if (command instanceof Command.CreateService c) {
      return new ServiceDefined(createService(c.actor(), c.service(), c.ephemeral(), c.protectThreshold(),
          c.metadata()));
    } else if (command instanceof Command.UpdateService c) {
      return new ServiceDefined(updateService(c.actor(), c.service(), c.ephemeral(), c.protectThreshold(),
          c.metadata()));
    } else if (command instanceof Command.DeleteService c) {
      return new ServiceRemoved(deleteService(c.actor(), c.service()));
    } else if (command instanceof Command.OverrideInstance c) {
      return new Overridden(overrideInstance(c.actor(), c.service(), c.instanceId(), c.value()));
    } else if (command instanceof Command.RestoreEnabled c) {
      return new Overridden(restoreEnabled(c.actor(), c.service(), c.instanceId(), c.metadataKeys()));
    } else if (command instanceof Command.PatchInstance c) {
      return new Overridden(patchInstance(c.actor(), c.service(), c.instanceId(), c.enabled(), c.weight(),
          c.metadata()));
    }
    throw new IllegalArgumentException("unknown command " + command);
  }

  /**
   * Whether the answer to a command must wait until its durable changes are committed: what it
   * changes (or would have changed) survives a restart. Ephemeral instances live in memory only.
   */
  public boolean answeredDurably(Command command) {
    if (command instanceof Command.ActingFor c) {
      return answeredDurably(c.command());
    }
    if (command instanceof Command.Traced c) {
      return answeredDurably(c.command());
    }
    if (command instanceof Command.Register c) {
      return !c.ephemeral();
    }
    if (command instanceof Command.Deregister c) {
      return persistent(c.service());
    }
    return command instanceof Command.CreateService || command instanceof Command.UpdateService
        || command instanceof Command.DeleteService || command instanceof Command.OverrideInstance
        || command instanceof Command.PatchInstance || command instanceof Command.RestoreEnabled;
  }

  // The commands one by one, for the core's own tests; each throws a RegistryException to refuse.

  Registered register(Owner owner, ServiceKey key, boolean ephemeral, InstanceSpec spec) {
    return instances.register(owner, key, ephemeral, spec);
  }

  BatchRegistered batchRegister(Owner owner, ServiceKey key, List<InstanceSpec> batch) {
    return instances.batchRegister(owner, key, batch);
  }

  Deregistered deregister(Owner owner, ServiceKey key, String ip, int port, String cluster) {
    return instances.deregister(owner, key, InstanceSpec.instanceId(ip, port, cluster));
  }

  HeartbeatOutcome heartbeat(Owner owner, ServiceKey key, InstanceSpec spec) {
    return instances.heartbeat(owner, key, spec);
  }

  int heartbeatAll(Owner owner) {
    return instances.heartbeatAll(owner);
  }

  int release(Owner owner) {
    return instances.release(owner);
  }

  int expire() {
    replicas.endLateHandovers();
    return instances.expire();
  }

  int stalled(long millis) {
    return instances.stalled(millis);
  }

  /**
   * Removes services created by registrations that have been empty for the cleanup time, and
   * overrides whose instance has been gone for the retention time.
   */
  int cleanUp() {
    return cleanUp(true);
  }

  int cleanUp(boolean durable) {
    long now = clock.millis();
    int removed = services.cleanUp(now, lifecycle.emptyServiceCleanup().toMillis(), durable);
    if (durable) {
      overrides.prune(now, lifecycle.overrideRetention().toMillis());
    }
    return removed;
  }

  boolean healthChecked(ServiceKey key, String instanceId, HealthCheck check) {
    return instances.healthChecked(key, instanceId, check);
  }

  InstanceView overrideInstance(Owner actor, ServiceKey key, String instanceId, InstanceOverride value) {
    return instances.override(actor, key, instanceId, value);
  }

  InstanceView patchInstance(Owner actor, ServiceKey key, String instanceId, Boolean enabled, Double weight,
      Map<String, String> metadataChanges) {
    instances.require(key, instanceId);
    InstanceOverride patched = overrides.current(key, instanceId).patched(enabled, weight, metadataChanges);
    return instances.override(actor, key, instanceId, patched);
  }

  InstanceView restoreEnabled(Owner actor, ServiceKey key, String instanceId, List<String> metadataKeys) {
    instances.require(key, instanceId);
    Map<String, String> lifted = new HashMap<>();
    metadataKeys.forEach(name -> lifted.put(name, null));
    InstanceOverride kept = overrides.current(key, instanceId).patched(null, null, lifted);
    return instances.override(actor, key, instanceId, InstanceOverride.replacing(null, kept.weight(), kept.metadata()));
  }

  ServiceDefinition createService(Owner actor, ServiceKey key, boolean ephemeral, double protectThreshold,
      Map<String, String> metadata) {
    return services.create(actor, key, ephemeral, protectThreshold, metadata);
  }

  ServiceDefinition updateService(Owner actor, ServiceKey key, Boolean ephemeral, Double protectThreshold,
      Map<String, String> metadata) {
    return services.update(actor, key, ephemeral, protectThreshold, metadata);
  }

  long deleteService(Owner actor, ServiceKey key) {
    return services.delete(actor, key);
  }

  /** Another member's committed durable changes, in log order; see {@link Command.ApplyCommitted}. */
  int applyCommitted(List<DurableChange> changes) {
    long now = clock.millis();
    for (DurableChange change : changes) {
      if (change instanceof DurableChange.ServiceSaved s) {
        services.replicated(s, now);
      } else if (change instanceof DurableChange.InstanceSaved i) {
        instances.replicated(i.service(), i.spec(), i.healthy());
      } else if (change instanceof DurableChange.OverrideSaved o) {
        instances.replicatedOverride(o.service(), o.instanceId(), o.value());
      } else if (change instanceof DurableChange.Removed r) {
        DurableChange.Subject subject = r.subject();
        switch (subject.kind()) {
          case SERVICE -> services.replicatedRemoval(subject.service());
          case INSTANCE -> instances.replicatedRemoval(subject.service(), subject.instanceId());
          case OVERRIDE -> instances.replicatedOverride(subject.service(), subject.instanceId(), InstanceOverride.NONE);
          default -> throw new IllegalArgumentException("unknown subject " + subject);
        }
      }
    }
    log.takeDurableChanges(); // the log holds them already: nothing is written again
    return changes.size();
  }

  /**
   * Makes this node's durable state exactly {@code values} (the latest value of each subject): what
   * is not among them is removed (instances, then overrides, then services), then each is applied
   * (services, then overrides, then instances, as at start).
   */
  int replaceCommitted(List<DurableChange> values) {
    Set<DurableChange.Subject> kept = new HashSet<>();
    values.forEach(value -> kept.add(value.subject()));
    List<DurableChange> changes = new ArrayList<>(values);
    Consumer<DurableChange.Subject> unlessKept = subject -> {
      if (!kept.contains(subject)) {
        changes.add(new DurableChange.Removed(subject));
      }
    };
    services.durableSubjects(unlessKept);
    overrides.subjects(unlessKept);
    return applyCommitted(DurableChange.inApplyOrder(changes));
  }

  // ---------------------------------------------------------------- reads

  @Override
  public ServiceView view(ServiceKey key, ViewFilter filter) {
    Service service = services.get(key);
    if (service == null) {
      return new ServiceView(key, false, true, log.revision(), false, List.of());
    }
    List<InstanceView> all = service.views();
    boolean triggered = ViewRules.protectionTriggered(all, filter, service.protectThreshold);
    return new ServiceView(key, true, service.ephemeral, log.revision(), triggered,
        ViewRules.select(all, filter, triggered));
  }

  @Override
  public Optional<ServiceDefinition> service(ServiceKey key) {
    return Optional.ofNullable(services.get(key)).map(Service::definition);
  }

  @Override
  public List<ServiceSummary> list(String namespace, String group, String prefix) {
    return services.list(namespace, group, prefix);
  }

  @Override
  public List<ServiceKey> keys(String namespace, String group) {
    return services.keys(namespace, group);
  }

  @Override
  public List<Results.InstanceRecord> instanceRecords(ServiceKey key) {
    return instances.records(key);
  }

  @Override
  public Optional<ServiceSummary> summary(ServiceKey key) {
    return Optional.ofNullable(services.summary(key));
  }

  @Override
  public boolean exists(ServiceKey key) {
    return services.get(key) != null;
  }

  @Override
  public boolean persistent(ServiceKey key) {
    Service service = services.get(key);
    return service != null && !service.ephemeral;
  }

  @Override
  public boolean protectionTriggered(ServiceKey key, ViewFilter filter) {
    Service service = services.get(key);
    return service != null && filter.healthyOnly() && service.protectThreshold > 0
        && ViewRules.protectionTriggered(service.views(), filter, service.protectThreshold);
  }

  @Override
  public long serviceRevision(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? -1 : service.revision;
  }

  @Override
  public long revision() {
    return log.revision();
  }

  @Override
  public HeartbeatFigures heartbeatFigures() {
    return expiry.heartbeatFigures(clock.millis());
  }

  @Override
  public boolean selfPreserving() {
    return expiry.selfPreserving();
  }

  @Override
  public int ownedBy(Owner owner) {
    return instances.ownedBy(owner);
  }

  @Override
  public List<InstanceAddress> ownedAddresses(Owner owner) {
    return instances.ownedAddresses(owner);
  }

  @Override
  public @Nullable Owner ownerOf(InstanceAddress address) {
    return instances.ownerOf(address);
  }

  @Override
  public List<HealthTarget> healthTargets() {
    return services.healthTargets();
  }

  @Override
  public List<ReplicaChange.Claimed> claims() {
    List<ReplicaChange.Claimed> claims = new ArrayList<>();
    instances.forEachClaim(claims::add);
    return claims;
  }

  @Override
  public ReplicaDigest claimsDigest() {
    return log.claimsDigest();
  }

  @Override
  public ReplicaDigest replicaDigest(String node) {
    return replicas.digest(node);
  }

  @Override
  public int replicaCopies(String node) {
    return replicas.held(node);
  }

  @Override
  public InstanceCounts instanceCounts() {
    return services.instanceCounts();
  }

  @Override
  public int serviceCount() {
    return services.size();
  }

  @Override
  public int namespaceCount() {
    return services.usage().namespaces();
  }

  @Override
  public List<NamespaceSummary> namespaces() {
    return services.namespaces();
  }

  @Override
  public long durableMetadataBytes() {
    return services.usage().durableMetadataBytes();
  }

  /** The events recorded since the last call, in revision order. */
  public List<RegistryEvent> takeEvents() {
    return log.takeEvents();
  }

  /**
   * The changes to this node's claims since the last call, the latest per instance: what its peers
   * need to keep their copies equal to its claims.
   */
  public List<ReplicaChange> takeReplicaChanges() {
    return log.takeReplicaChanges();
  }

  /**
   * The durable changes recorded since the last call, in the order they were decided. Storage
   * must write them in exactly this order.
   */
  public List<DurableChange> takeDurableChanges() {
    return log.takeDurableChanges();
  }

  // ---------------------------------------------------------------- restart

  /**
   * Rebuilds durable state at start, before any connection: services, then overrides, then
   * persistent instances (so that their views show the overrides; with the health their checks
   * last found). {@code saved} holds the latest value of each subject, as storage replayed
   * them; {@code lastRevision} is the revision of the last durable change, from which revisions
   * continue. Emits no events and no durable changes: nobody is subscribed yet, and this is what
   * storage already holds.
   */
  public void restore(Collection<DurableChange> saved, long lastRevision) {
    log.continueAbove(lastRevision);
    long now = clock.millis();
    for (DurableChange change : saved) {
      if (change instanceof DurableChange.ServiceSaved s) {
        Service service = new Service(s.service(), s.ephemeral());
        service.protectThreshold = s.protectThreshold();
        service.metadata = s.metadata();
        service.defined = s.defined();
        service.revision = log.revision();
        services.restore(service);
      }
    }
    // An override waits, from now, for its instance; a restored persistent instance is present at
    // once, an ephemeral one when it registers again.
    for (DurableChange change : saved) {
      if (change instanceof DurableChange.OverrideSaved o) {
        overrides.restore(o.service(), o.instanceId(), o.value(), now);
      }
    }
    for (DurableChange change : saved) {
      if (change instanceof DurableChange.InstanceSaved i) {
        instances.restore(i.spec(), i.healthy(), i.service(), now);
      }
    }
    for (Service service : services.all()) {
      services.vacated(service, now);
    }
  }
}
