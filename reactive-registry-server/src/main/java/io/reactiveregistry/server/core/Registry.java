package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.InstanceRules;
import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceDeleted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceUpdated;
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
import io.reactiveregistry.server.core.Results.ServiceSummary;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The registry's state machine. Each command either throws a {@link RegistryException} having
 * changed nothing, or applies its changes and records one {@link RegistryEvent} per change, each
 * with the next revision; the caller collects them with {@link #takeEvents()}. Changes to what
 * must survive a restart are also recorded as {@link DurableChange}s ({@link #takeDurableChanges()}).
 *
 * <p>Not thread-safe: one writer at a time.
 */
public final class Registry implements RegistryReads {
  private final InstantSource clock;
  private final RegistryConfig config;
  private final LifecycleConfig lifecycle;
  private final RandomGenerator random;
  private final Map<ServiceKey, Service> services = new HashMap<>();
  private final Map<Owner, Ownership> owners = new HashMap<>();
  private final Map<ServiceKey, Map<String, KeptOverride>> overrides = new HashMap<>();
  private final Set<Service> emptyServices = new LinkedHashSet<>();
  private final ExpiryQueue expiry = new ExpiryQueue();
  /** Instances whose deadline has come, waiting to be drawn at random by an expiry pass. */
  private final List<RegisteredInstance> duePool = new ArrayList<>();
  private final HeartbeatAccounting heartbeats;
  private final QuotaUsage usage;
  private final List<RegistryEvent> events = new ArrayList<>();
  private final List<DurableChange> durable = new ArrayList<>();
  private long revision;
  private boolean selfPreserving;

  /** What one connection owns, and what it deregistered (so a late heartbeat cannot undo that). */
  private static final class Ownership {
    final Set<RegisteredInstance> owned = new LinkedHashSet<>();
    final Set<InstanceAddress> deregistered = new LinkedHashSet<>();
  }

  private record InstanceAddress(ServiceKey service, String instanceId) {}

  /** An operator override, and since when its instance has been gone (0 while it exists). */
  private static final class KeptOverride {
    InstanceOverride value;
    long goneSince;

    KeptOverride(InstanceOverride value) {
      this.value = value;
    }
  }

  public Registry(InstantSource clock, RegistryConfig config) {
    this(clock, config, LifecycleConfig.DEFAULTS, new Random());
  }

  public Registry(InstantSource clock, RegistryConfig config, LifecycleConfig lifecycle, RandomGenerator random) {
    this.clock = clock;
    this.config = config;
    this.lifecycle = lifecycle;
    this.random = random;
    this.heartbeats = new HeartbeatAccounting((int) Math.max(1, lifecycle.selfPreservationWindow().toSeconds()));
    this.usage = new QuotaUsage(config.quotas());
  }

  // ---------------------------------------------------------------- commands

  /**
   * Applies a command: its changes are recorded as events ({@link #takeEvents()}) and durable
   * changes ({@link #takeDurableChanges()}); a refusal is returned as {@link Refused}, having
   * changed nothing.
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
    if (command instanceof Command.Heartbeat c) {
      return heartbeat(c.owner(), c.service(), c.instance());
    } else if (command instanceof Command.HeartbeatAll c) {
      return new Counted(heartbeatAll(c.owner()));
    } else if (command instanceof Command.Register c) {
      return register(c.owner(), c.service(), c.ephemeral(), c.instance());
    } else if (command instanceof Command.BatchRegister c) {
      return batchRegister(c.owner(), c.service(), c.instances());
    } else if (command instanceof Command.Deregister c) {
      return deregister(c.owner(), c.service(), c.instanceId());
    } else if (command instanceof Command.Release c) {
      return new Counted(release(c.owner()));
    } else if (command instanceof Command.Expire) {
      return new Counted(expire());
    } else if (command instanceof Command.CleanUp) {
      return new Counted(cleanUp());
    } else if (command instanceof Command.Stalled c) {
      return new Counted(stalled(c.millis()));
    } else if (command instanceof Command.RecordHealth c) {
      return new HealthRecorded(healthChecked(c.service(), c.instanceId(), c.healthy()));
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
    if (command instanceof Command.Register c) {
      return !c.ephemeral();
    }
    if (command instanceof Command.Deregister c) {
      return persistent(c.service());
    }
    return command instanceof Command.CreateService || command instanceof Command.UpdateService
        || command instanceof Command.DeleteService || command instanceof Command.OverrideInstance
        || command instanceof Command.PatchInstance;
  }

  // ---------------------------------------------------------------- instances

  /**
   * Registers an instance, or updates it when its id is already registered. A registration from
   * another connection takes an ephemeral instance over. Counts as a heartbeat.
   */
  Registered register(Owner owner, ServiceKey key, boolean ephemeral, InstanceSpec spec) {
    HeartbeatTimings timings = HeartbeatTimings.from(spec.metadata(), config.defaultTimings());
    Service service = services.get(key);
    if (service != null && service.ephemeral != ephemeral) {
      throw typeMismatch(service);
    }
    RegisteredInstance existing = service == null ? null : service.instances.get(spec.instanceId());
    if (ephemeral) {
      checkCapacity(owner, existing, 1);
    } else {
      usage.checkDurable(key, existing == null ? 1 : 0,
          QuotaUsage.bytes(spec.metadata()) - (existing == null ? 0 : QuotaUsage.bytes(existing.spec.metadata())));
    }
    if (service == null) {
      usage.checkNewService(key);
    }
    return apply(owner, serviceFor(key, ephemeral), spec, timings);
  }

  /**
   * Makes the connection's instances in an ephemeral service exactly the batch: missing ones are
   * deregistered, new ones registered, changed ones updated. One invalid instance refuses all.
   */
  BatchRegistered batchRegister(Owner owner, ServiceKey key, List<InstanceSpec> batch) {
    Service service = services.get(key);
    if (service != null && !service.ephemeral) {
      throw typeMismatch(service);
    }
    Map<String, InstanceSpec> wanted = new LinkedHashMap<>();
    List<HeartbeatTimings> timings = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      InstanceSpec spec = batch.get(i);
      if (wanted.put(spec.instanceId(), spec) != null) {
        throw RegistryException.invalid("instances[" + i + "] repeats instance " + spec.instanceId());
      }
      try {
        timings.add(HeartbeatTimings.from(spec.metadata(), config.defaultTimings()));
      } catch (RegistryException e) {
        throw RegistryException.invalid("instances[" + i + "]." + e.getMessage());
      }
    }
    List<RegisteredInstance> leaving = new ArrayList<>();
    int arriving = 0;
    Ownership ownership = owners.get(owner);
    if (ownership != null) {
      for (RegisteredInstance instance : ownership.owned) {
        if (instance.service.key.equals(key) && !wanted.containsKey(instance.id())) {
          leaving.add(instance);
        }
      }
    }
    for (InstanceSpec spec : wanted.values()) {
      RegisteredInstance existing = service == null ? null : service.instances.get(spec.instanceId());
      if (existing == null || existing.owner != owner) {
        arriving++;
      }
    }
    if (ownedBy(owner) - leaving.size() + arriving > config.maxInstancesPerOwner()) {
      throw tooMany();
    }
    if (service == null && !wanted.isEmpty()) {
      usage.checkNewService(key);
    }
    for (RegisteredInstance instance : leaving) {
      remove(instance, ChangeCause.DEREGISTER, owner);
      rememberDeregistered(owner, new InstanceAddress(key, instance.id()));
    }
    if (wanted.isEmpty()) {
      // Nothing to register: never create a service for it (an empty service nobody would clean up).
      return new BatchRegistered(List.of(), revision);
    }
    Service target = serviceFor(key, true);
    int i = 0;
    for (InstanceSpec spec : wanted.values()) {
      apply(owner, target, spec, timings.get(i++));
    }
    // The last revision used, or the current one when the batch changed nothing: the same number.
    return new BatchRegistered(List.copyOf(wanted.keySet()), revision);
  }

  private Registered apply(Owner owner, Service service, InstanceSpec spec, HeartbeatTimings timings) {
    boolean ephemeral = service.ephemeral;
    String id = spec.instanceId();
    RegisteredInstance existing = service.instances.get(id);
    long now = clock.millis();
    // Registering counts as a heartbeat, so an ephemeral instance is healthy; a persistent one's
    // health belongs to its checks, and registering it again does not change it.
    boolean healthy = ephemeral || existing == null || existing.view.healthy();
    InstanceView view = project(service.key, id, spec, healthy, ephemeral);
    if (!ephemeral && (existing == null || !existing.spec.equals(spec))) {
      durable.add(new DurableChange.InstanceSaved(service.key, spec));
      usage.durableChanged(service.key, existing == null ? 1 : 0,
          QuotaUsage.bytes(spec.metadata()) - (existing == null ? 0 : QuotaUsage.bytes(existing.spec.metadata())));
    }
    if (existing == null) {
      RegisteredInstance created = new RegisteredInstance(service, spec, view, ephemeral ? owner : null, timings, now);
      service.instances.put(id, created);
      becameNonEmpty(service);
      present(service.key, id);
      if (ephemeral) {
        ownership(owner).owned.add(created);
        expiry.schedule(created, created.nextDeadline());
        heartbeats.instanceAdded(timings);
        heartbeats.received(now, 1);
      }
      upserted(created, ChangeCause.REGISTER, owner);
    } else {
      existing.spec = spec;
      if (ephemeral) {
        heartbeats.instanceRemoved(existing.timings); // the same instance, perhaps with new timings
        heartbeats.instanceAdded(timings);
        heartbeats.received(now, 1);
      }
      existing.timings = timings;
      existing.lastHeartbeatAt = now;
      if (ephemeral && existing.owner != owner) {
        disown(existing);
        existing.owner = owner;
        ownership(owner).owned.add(existing);
      }
      boolean changed = !view.equals(existing.view);
      existing.view = view;
      if (ephemeral) {
        expiry.schedule(existing, existing.nextDeadline());
      }
      if (changed) {
        upserted(existing, ChangeCause.REGISTER, owner);
      }
    }
    if (ephemeral) {
      ownership(owner).deregistered.remove(new InstanceAddress(service.key, id));
    }
    return new Registered(id, revision, timings);
  }

  /**
   * Removes an instance. Only the owning connection may remove an ephemeral instance; removing
   * what does not exist succeeds with {@code removed = false}.
   */
  Deregistered deregister(Owner owner, ServiceKey key, String ip, int port, String cluster) {
    return deregister(owner, key, InstanceSpec.instanceId(ip, port, cluster));
  }

  Deregistered deregister(Owner owner, ServiceKey key, String id) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null ? null : service.instances.get(id);
    if (instance != null && service.ephemeral && instance.owner != owner) {
      throw new RegistryException(Failure.FORBIDDEN, "instance " + id + " of service " + key
          + " is owned by another connection; only its owner may deregister it");
    }
    if (service == null || service.ephemeral) {
      rememberDeregistered(owner, new InstanceAddress(key, id));
    }
    if (instance == null) {
      return new Deregistered(false, revision);
    }
    remove(instance, ChangeCause.DEREGISTER, owner);
    return new Deregistered(true, revision);
  }

  /**
   * A heartbeat naming one instance: refreshes it if this connection owns it, re-creates it if
   * the server no longer has it (unless this connection deregistered it), and otherwise does
   * nothing.
   */
  HeartbeatOutcome heartbeat(Owner owner, ServiceKey key, InstanceSpec spec) {
    Service service = services.get(key);
    if (service != null && !service.ephemeral) {
      return HeartbeatOutcome.IGNORED_PERSISTENT;
    }
    String id = spec.instanceId();
    RegisteredInstance instance = service == null ? null : service.instances.get(id);
    if (instance != null) {
      if (instance.owner != owner) {
        return HeartbeatOutcome.IGNORED_NOT_OWNER;
      }
      long now = clock.millis();
      heartbeats.received(now, 1);
      beat(instance, now);
      return HeartbeatOutcome.REFRESHED;
    }
    Ownership ownership = owners.get(owner);
    if (ownership != null && ownership.deregistered.contains(new InstanceAddress(key, id))) {
      return HeartbeatOutcome.IGNORED_DEREGISTERED;
    }
    register(owner, key, true, spec);
    return HeartbeatOutcome.RECREATED;
  }

  /** A heartbeat with an empty body: refreshes every instance the connection owns. */
  int heartbeatAll(Owner owner) {
    Ownership ownership = owners.get(owner);
    if (ownership == null) {
      return 0;
    }
    long now = clock.millis();
    heartbeats.received(now, ownership.owned.size());
    for (RegisteredInstance instance : ownership.owned) {
      beat(instance, now);
    }
    return ownership.owned.size();
  }

  /** The connection closed: every ephemeral instance it still owns goes, at once. */
  int release(Owner owner) {
    Ownership ownership = owners.remove(owner);
    if (ownership == null) {
      return 0;
    }
    for (RegisteredInstance instance : ownership.owned) {
      instance.owner = null; // already out of the ownership index
      remove(instance, ChangeCause.CONNECTION_CLOSED, owner);
    }
    return ownership.owned.size();
  }

  // ---------------------------------------------------------------- time

  /**
   * Applies heartbeat deadlines that have passed: instances silent past their timeout turn
   * unhealthy, those silent past their delete timeout are removed. Every due instance waits in a
   * pool, from which each pass draws at random, at most the configured budget: a mass expiry is
   * spread over time and over services, never one service wiped first. In self-preservation
   * nothing expires for missed heartbeats.
   *
   * @return how many instances were handled; equal to the budget when more may be due
   */
  int expire() {
    long now = clock.millis();
    heartbeats.accrue(now);
    updateSelfPreservation(now);
    RegisteredInstance due;
    while ((due = expiry.pollDue(now)) != null) {
      duePool.add(due);
    }
    if (selfPreserving) {
      return 0;
    }
    int handled = 0;
    while (handled < config.expiryBudget() && !duePool.isEmpty()) {
      RegisteredInstance candidate = takeRandomDue();
      if (candidate.removed) {
        continue;
      }
      handled++;
      if (candidate.deadAt(now)) {
        remove(candidate, ChangeCause.HEARTBEAT_TIMEOUT, null);
        continue;
      }
      if (candidate.view.healthy() && candidate.unhealthyAt(now)) {
        candidate.view = candidate.view.withHealthy(false);
        upserted(candidate, ChangeCause.HEARTBEAT_TIMEOUT, null);
      }
      expiry.schedule(candidate, candidate.nextDeadline());
    }
    return handled;
  }

  /**
   * The server itself did not run for {@code millis} (a long GC pause, a stopped process, a paused
   * VM): no heartbeat could be read meanwhile, so that time must not count against any instance.
   * Every ephemeral instance's last heartbeat moves forward by it (never past now), and the
   * heartbeats expected during it are not counted for self-preservation. Called by the ticker,
   * which notices it ran late, before the next expiry pass; heartbeats that waited in the sockets
   * are then read and applied as usual.
   *
   * @return how many instances had their deadlines moved
   */
  int stalled(long millis) {
    long now = clock.millis();
    int moved = 0;
    for (Ownership ownership : owners.values()) {
      for (RegisteredInstance instance : ownership.owned) {
        instance.lastHeartbeatAt = Math.min(now, instance.lastHeartbeatAt + millis);
        moved++;
      }
    }
    heartbeats.skip(now);
    return moved;
  }

  /** Removes a random member of the due pool in constant time (the last one takes its place). */
  private RegisteredInstance takeRandomDue() {
    int index = random.nextInt(duePool.size());
    RegisteredInstance taken = duePool.get(index);
    RegisteredInstance last = duePool.remove(duePool.size() - 1);
    if (index < duePool.size()) {
      duePool.set(index, last);
    }
    return taken;
  }

  /**
   * Removes services created by registrations that have been empty for the cleanup time, and
   * overrides whose instance has been gone for the retention time.
   */
  int cleanUp() {
    long now = clock.millis();
    int removed = 0;
    long emptyFor = lifecycle.emptyServiceCleanup().toMillis();
    for (Iterator<Service> it = emptyServices.iterator(); it.hasNext(); ) {
      Service service = it.next();
      if (service.emptySince != 0 && now - service.emptySince >= emptyFor) {
        it.remove();
        services.remove(service.key);
        serviceRemovedDurably(service);
        forget(service);
        events.add(new ServiceDeleted(service.key, ++revision, ChangeCause.CLEANUP, null));
        removed++;
      }
    }
    long retention = lifecycle.overrideRetention().toMillis();
    for (Iterator<Map.Entry<ServiceKey, Map<String, KeptOverride>>> byService = overrides.entrySet().iterator();
        byService.hasNext(); ) {
      Map.Entry<ServiceKey, Map<String, KeptOverride>> entry = byService.next();
      Map<String, KeptOverride> ofService = entry.getValue();
      for (Iterator<Map.Entry<String, KeptOverride>> it = ofService.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, KeptOverride> override = it.next();
        if (override.getValue().goneSince != 0 && now - override.getValue().goneSince >= retention) {
          it.remove();
          durable.add(DurableChange.Removed.override(entry.getKey(), override.getKey()));
        }
      }
      if (ofService.isEmpty()) {
        byService.remove();
      }
    }
    return removed;
  }

  /** Whether missed heartbeats are currently not expiring instances. */
  @Override
  public boolean selfPreserving() {
    return selfPreserving;
  }

  private void updateSelfPreservation(long now) {
    selfPreserving = lifecycle.selfPreservation()
        && heartbeats.ratio(now) < lifecycle.selfPreservationThreshold();
  }

  // ---------------------------------------------------------------- health of persistent instances


  /** Every persistent instance, for one round of health checks. */
  @Override
  public List<HealthTarget> healthTargets() {
    List<HealthTarget> targets = new ArrayList<>();
    for (Service service : services.values()) {
      if (service.ephemeral) {
        continue;
      }
      for (RegisteredInstance instance : service.instances.values()) {
        targets.add(new HealthTarget(service.key, instance.id(), instance.spec.ip(), instance.spec.port(),
            instance.view.metadata().get(HEALTH_HTTP_PATH), service.metadata));
      }
    }
    return targets;
  }

  /**
   * Records a health check's result: a failing check marks a persistent instance unhealthy, a
   * passing one healthy again; only a change emits an event. An instance that has gone is ignored.
   */
  boolean healthChecked(ServiceKey key, String instanceId, boolean healthy) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null || service.ephemeral ? null : service.instances.get(instanceId);
    if (instance == null || instance.view.healthy() == healthy) {
      return false;
    }
    instance.view = instance.view.withHealthy(healthy);
    upserted(instance, ChangeCause.HEALTH_CHECK, null);
    return true;
  }

  /** Instance metadata key: check health by an HTTP GET of this path rather than a TCP connect. */
  public static final String HEALTH_HTTP_PATH = "health.http.path";

  // ---------------------------------------------------------------- operator overrides

  /** Replaces an instance's override; fields left out stop being overridden. */
  InstanceView overrideInstance(Owner actor, ServiceKey key, String instanceId, InstanceOverride value) {
    RegisteredInstance instance = requireInstance(key, instanceId);
    return setOverride(actor, instance, value);
  }

  /** Changes only the given fields of an instance's override. */
  InstanceView patchInstance(Owner actor, ServiceKey key, String instanceId, Boolean enabled, Double weight,
      Map<String, String> metadataChanges) {
    RegisteredInstance instance = requireInstance(key, instanceId);
    KeptOverride current = overrides.getOrDefault(key, Map.of()).get(instanceId);
    InstanceOverride base = current == null ? InstanceOverride.NONE : current.value;
    return setOverride(actor, instance, base.patched(enabled, weight, metadataChanges));
  }

  private InstanceView setOverride(Owner actor, RegisteredInstance instance, InstanceOverride value) {
    ServiceKey key = instance.service.key;
    if (value.isEmpty()) {
      Map<String, KeptOverride> ofService = overrides.get(key);
      if (ofService != null && ofService.remove(instance.id()) != null) {
        durable.add(DurableChange.Removed.override(key, instance.id()));
        if (ofService.isEmpty()) {
          overrides.remove(key);
        }
      }
    } else {
      KeptOverride current = overrides.computeIfAbsent(key, k -> new HashMap<>())
          .computeIfAbsent(instance.id(), id -> new KeptOverride(InstanceOverride.NONE));
      if (!value.equals(current.value)) {
        current.value = value;
        durable.add(new DurableChange.OverrideSaved(key, instance.id(), value));
      }
    }
    InstanceView view = project(key, instance.id(), instance.spec, instance.view.healthy(), instance.service.ephemeral);
    if (!view.equals(instance.view)) {
      instance.view = view;
      upserted(instance, ChangeCause.OVERRIDE, actor);
    }
    return instance.view;
  }

  private RegisteredInstance requireInstance(ServiceKey key, String instanceId) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null ? null : service.instances.get(instanceId);
    if (instance == null) {
      throw new RegistryException(Failure.NOT_FOUND, "instance " + instanceId + " of service " + key
          + " does not exist");
    }
    return instance;
  }

  // ---------------------------------------------------------------- service definitions

  /** An operator creates a service; it stays, even empty, until deleted. */
  ServiceDefinition createService(Owner actor, ServiceKey key, boolean ephemeral, double protectThreshold,
      Map<String, String> metadata) {
    if (services.containsKey(key)) {
      throw new RegistryException(Failure.ALREADY_EXISTS, "service " + key + " already exists");
    }
    double threshold = ServiceDefinition.checkThreshold(protectThreshold);
    Map<String, String> checked = Contract.check(() -> InstanceRules.metadata("metadata", metadata));
    usage.checkNewService(key);
    usage.checkDurable(key, 0, QuotaUsage.bytes(checked));
    Service service = new Service(key, ephemeral);
    service.defined = true;
    service.protectThreshold = threshold;
    service.metadata = checked;
    services.put(key, service);
    usage.serviceAdded(key);
    usage.durableChanged(key, 0, QuotaUsage.bytes(checked));
    saveDurably(service);
    serviceUpdated(service, actor);
    return service.definition();
  }

  /**
   * Replaces the settings it is given; an absent one is left alone. The type never changes: a
   * different {@code ephemeral} is refused. An updated service is kept until deleted.
   */
  ServiceDefinition updateService(Owner actor, ServiceKey key, Boolean ephemeral, Double protectThreshold,
      Map<String, String> metadata) {
    Service service = requireService(key);
    if (ephemeral != null && ephemeral != service.ephemeral) {
      throw RegistryException.invalid("ephemeral cannot change: service " + key + " is " + service.typeName());
    }
    double threshold = protectThreshold == null ? service.protectThreshold
        : ServiceDefinition.checkThreshold(protectThreshold);
    Map<String, String> checked = metadata == null ? service.metadata
        : Contract.check(() -> InstanceRules.metadata("metadata", metadata));
    long metadataBytes = QuotaUsage.bytes(checked) - QuotaUsage.bytes(service.metadata);
    usage.checkDurable(key, 0, metadataBytes);
    usage.durableChanged(key, 0, metadataBytes);
    boolean newlyDefined = !service.defined;
    service.defined = true;
    service.emptySince = 0;
    emptyServices.remove(service);
    boolean changed = threshold != service.protectThreshold || !checked.equals(service.metadata);
    service.protectThreshold = threshold;
    service.metadata = checked;
    if (changed || newlyDefined) {
      saveDurably(service);
    }
    if (changed) {
      serviceUpdated(service, actor);
    }
    return service.definition();
  }

  @Override
  public Optional<ServiceDefinition> service(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? Optional.empty() : Optional.of(service.definition());
  }

  /** Deletes an empty service; its subscribers see SERVICE_DELETED. */
  long deleteService(Owner actor, ServiceKey key) {
    Service service = requireService(key);
    if (!service.instances.isEmpty()) {
      throw new RegistryException(Failure.SERVICE_NOT_EMPTY, "service " + key + " still has "
          + service.instances.size() + " instance(s); deregister them first");
    }
    services.remove(key);
    emptyServices.remove(service);
    serviceRemovedDurably(service);
    forget(service);
    events.add(new ServiceDeleted(key, ++revision, ChangeCause.SERVICE_ADMIN, actor));
    return revision;
  }

  /** Services of a namespace (and group, when given) whose name starts with {@code prefix}, by group then name. */
  @Override
  public List<ServiceSummary> list(String namespace, String group, String prefix) {
    List<ServiceSummary> found = new ArrayList<>();
    for (Service service : services.values()) {
      ServiceKey key = service.key;
      if (key.namespace().equals(namespace) && (group == null || key.group().equals(group))
          && (prefix == null || key.service().startsWith(prefix))) {
        found.add(new ServiceSummary(key, service.ephemeral, service.instances.size(), service.healthyCount()));
      }
    }
    found.sort(Comparator.comparing((ServiceSummary s) -> s.service().group())
        .thenComparing(s -> s.service().service()));
    return found;
  }

  private Service requireService(ServiceKey key) {
    Service service = services.get(key);
    if (service == null) {
      throw new RegistryException(Failure.NOT_FOUND, "service " + key + " does not exist");
    }
    return service;
  }

  // ---------------------------------------------------------------- reads

  /** The view of a service through a filter, at the current revision; empty for an unknown service. */
  @Override
  public ServiceView view(ServiceKey key, ViewFilter filter) {
    Service service = services.get(key);
    if (service == null) {
      return new ServiceView(key, false, true, revision, false, List.of());
    }
    List<InstanceView> all = service.views();
    boolean triggered = ViewRules.protectionTriggered(all, filter, service.protectThreshold);
    return new ServiceView(key, true, service.ephemeral, revision, triggered, ViewRules.select(all, filter, triggered));
  }

  @Override
  public boolean exists(ServiceKey key) {
    return services.containsKey(key);
  }

  /** Whether the service exists and holds persistent instances (whose changes are durable). */
  @Override
  public boolean persistent(ServiceKey key) {
    Service service = services.get(key);
    return service != null && !service.ephemeral;
  }

  /** Whether a healthy-only view of the service is now in protection mode. */
  @Override
  public boolean protectionTriggered(ServiceKey key, ViewFilter filter) {
    Service service = services.get(key);
    return service != null && filter.healthyOnly() && service.protectThreshold > 0
        && ViewRules.protectionTriggered(service.views(), filter, service.protectThreshold);
  }

  /**
   * The revision of the last change to this service or its instances, or -1 for an unknown
   * service. Every view of the service is the same while it stays the same.
   */
  @Override
  public long serviceRevision(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? -1 : service.revision;
  }

  /** The revision of the last change. */
  @Override
  public long revision() {
    return revision;
  }

  @Override
  public int ownedBy(Owner owner) {
    Ownership ownership = owners.get(owner);
    return ownership == null ? 0 : ownership.owned.size();
  }

  /** Instances by type and health; looks at every instance, so for occasional reads (a metrics scrape). */
  @Override
  public Results.InstanceCounts instanceCounts() {
    int[] counts = new int[4];
    for (Service service : services.values()) {
      for (RegisteredInstance instance : service.instances.values()) {
        counts[(service.ephemeral ? 0 : 2) + (instance.view.healthy() ? 0 : 1)]++;
      }
    }
    return new Results.InstanceCounts(counts[0], counts[1], counts[2], counts[3]);
  }

  @Override
  public int namespaceCount() {
    return usage.namespaces();
  }

  /** UTF-8 bytes of metadata kept durably, counted against {@link Quotas#maxDurableMetadataBytes()}. */
  @Override
  public long durableMetadataBytes() {
    return usage.durableMetadataBytes();
  }

  @Override
  public int serviceCount() {
    return services.size();
  }

  /** The events recorded since the last call, in revision order. */
  public List<RegistryEvent> takeEvents() {
    if (events.isEmpty()) {
      return List.of();
    }
    List<RegistryEvent> taken = List.copyOf(events);
    events.clear();
    return taken;
  }

  /**
   * The durable changes recorded since the last call, in the order they were decided. Storage
   * must write them in exactly this order.
   */
  public List<DurableChange> takeDurableChanges() {
    if (durable.isEmpty()) {
      return List.of();
    }
    List<DurableChange> taken = List.copyOf(durable);
    durable.clear();
    return taken;
  }

  // ---------------------------------------------------------------- restart

  /**
   * Rebuilds durable state at start, before any connection: services, then overrides, then
   * persistent instances (so that their views show the overrides; healthy until their first check
   * says otherwise). {@code saved} holds the
   * latest value of each subject, as storage replayed them; {@code lastRevision} is the revision
   * of the last durable change, from which revisions continue. Emits no events and no durable
   * changes: nobody is subscribed yet, and this is what storage already holds.
   */
  public void restore(Collection<DurableChange> saved, long lastRevision) {
    revision = Math.max(revision, lastRevision);
    long now = clock.millis();
    for (DurableChange change : saved) {
      if (change instanceof DurableChange.ServiceSaved s) {
        Service service = new Service(s.service(), s.ephemeral());
        service.protectThreshold = s.protectThreshold();
        service.metadata = s.metadata();
        service.defined = s.defined();
        service.revision = revision;
        if (services.put(s.service(), service) == null) {
          usage.serviceAdded(s.service());
        }
        usage.durableChanged(s.service(), 0, QuotaUsage.bytes(service.metadata));
      }
    }
    // An override waits, from now, for its instance; a restored persistent instance is present at
    // once, an ephemeral one when it registers again.
    for (DurableChange change : saved) {
      if (change instanceof DurableChange.OverrideSaved o) {
        KeptOverride override = new KeptOverride(o.value());
        override.goneSince = now;
        overrides.computeIfAbsent(o.service(), k -> new HashMap<>()).put(o.instanceId(), override);
      }
    }
    for (DurableChange change : saved) {
      if (change instanceof DurableChange.InstanceSaved i) {
        Service service = services.computeIfAbsent(i.service(), key -> {
          usage.serviceAdded(key);
          return new Service(key, false);
        });
        InstanceSpec spec = i.spec();
        usage.durableChanged(i.service(), 1, QuotaUsage.bytes(spec.metadata()));
        HeartbeatTimings timings = HeartbeatTimings.from(spec.metadata(), config.defaultTimings());
        InstanceView view = project(service.key, spec.instanceId(), spec, true, false);
        service.instances.put(spec.instanceId(), new RegisteredInstance(service, spec, view, null, timings, now));
        present(service.key, spec.instanceId());
      }
    }
    for (Service service : services.values()) {
      if (service.instances.isEmpty() && !service.defined) {
        service.emptySince = now;
        emptyServices.add(service);
      }
    }
  }

  // ---------------------------------------------------------------- internals

  private void saveDurably(Service service) {
    if (service.durable()) {
      durable.add(new DurableChange.ServiceSaved(service.key, service.ephemeral, service.protectThreshold,
          service.metadata, service.defined));
    }
  }

  private void serviceRemovedDurably(Service service) {
    if (service.durable()) {
      durable.add(DurableChange.Removed.service(service.key));
    }
  }

  private Service serviceFor(ServiceKey key, boolean ephemeral) {
    Service service = services.get(key);
    if (service == null) {
      service = new Service(key, ephemeral);
      services.put(key, service);
      usage.serviceAdded(key);
      saveDurably(service);
    }
    return service;
  }

  /** A service removed: what it counted against the quotas is free again. */
  private void forget(Service service) {
    usage.durableChanged(service.key, 0, -QuotaUsage.bytes(service.metadata));
    usage.serviceRemoved(service.key);
  }

  private void beat(RegisteredInstance instance, long now) {
    instance.lastHeartbeatAt = now;
    if (!instance.view.healthy()) {
      instance.view = instance.view.withHealthy(true);
      expiry.schedule(instance, instance.nextDeadline());
      upserted(instance, ChangeCause.HEARTBEAT, instance.owner);
    }
  }

  private void remove(RegisteredInstance instance, ChangeCause cause, Owner actor) {
    Service service = instance.service;
    service.instances.remove(instance.id());
    instance.removed = true;
    if (!service.ephemeral) {
      durable.add(DurableChange.Removed.instance(service.key, instance.id()));
      usage.durableChanged(service.key, -1, -QuotaUsage.bytes(instance.spec.metadata()));
    }
    disown(instance);
    if (service.ephemeral) {
      heartbeats.instanceRemoved(instance.timings);
    }
    KeptOverride override = overrides.getOrDefault(service.key, Map.of()).get(instance.id());
    if (override != null) {
      override.goneSince = clock.millis();
    }
    events.add(new InstanceRemoved(service.key, ++revision, instance.view, cause, actor));
    service.revision = revision;
    if (service.instances.isEmpty() && !service.defined) {
      service.emptySince = clock.millis();
      emptyServices.add(service);
    }
  }

  private void becameNonEmpty(Service service) {
    if (service.emptySince != 0 || emptyServices.contains(service)) {
      service.emptySince = 0;
      emptyServices.remove(service);
    }
  }

  private void present(ServiceKey key, String instanceId) {
    KeptOverride override = overrides.getOrDefault(key, Map.of()).get(instanceId);
    if (override != null) {
      override.goneSince = 0;
    }
  }

  private void upserted(RegisteredInstance instance, ChangeCause cause, Owner actor) {
    events.add(new InstanceUpserted(instance.service.key, ++revision, instance.view, cause, actor));
    instance.service.revision = revision;
  }

  private void serviceUpdated(Service service, Owner actor) {
    events.add(new ServiceUpdated(service.key, ++revision, ChangeCause.SERVICE_ADMIN, actor));
    service.revision = revision;
  }

  private void disown(RegisteredInstance instance) {
    if (instance.owner != null) {
      Ownership ownership = owners.get(instance.owner);
      if (ownership != null) {
        ownership.owned.remove(instance);
      }
    }
  }

  private Ownership ownership(Owner owner) {
    return owners.computeIfAbsent(owner, o -> new Ownership());
  }

  private void rememberDeregistered(Owner owner, InstanceAddress address) {
    Set<InstanceAddress> remembered = ownership(owner).deregistered;
    remembered.add(address);
    // Bounded like what a connection may own, so a client cannot grow it without limit.
    if (remembered.size() > config.maxInstancesPerOwner()) {
      Iterator<InstanceAddress> oldest = remembered.iterator();
      oldest.next();
      oldest.remove();
    }
  }

  private void checkCapacity(Owner owner, RegisteredInstance existing, int adding) {
    if (existing != null && existing.owner == owner) {
      return;
    }
    if (ownedBy(owner) + adding > config.maxInstancesPerOwner()) {
      throw tooMany();
    }
  }

  private RegistryException tooMany() {
    return new RegistryException(Failure.LIMIT_EXCEEDED, "this connection may own at most "
        + config.maxInstancesPerOwner() + " instances");
  }

  private static RegistryException typeMismatch(Service service) {
    return new RegistryException(Failure.SERVICE_TYPE_MISMATCH, "service " + service.key + " is "
        + service.typeName() + "; register with \"ephemeral\": " + service.ephemeral);
  }

  private InstanceView project(ServiceKey key, String id, InstanceSpec spec, boolean healthy, boolean ephemeral) {
    KeptOverride override = overrides.getOrDefault(key, Map.of()).get(id);
    return (override == null ? InstanceOverride.NONE : override.value).apply(id, spec, healthy, ephemeral);
  }
}
