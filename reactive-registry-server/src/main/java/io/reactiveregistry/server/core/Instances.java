package io.reactiveregistry.server.core;

import io.reactiveregistry.server.core.Outcome.BatchRegistered;
import io.reactiveregistry.server.core.Outcome.Deregistered;
import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import io.reactiveregistry.server.core.Outcome.Registered;
import io.reactiveregistry.server.core.OwnershipRules.Registration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What happens to instances: registration (alone or in a batch), heartbeats, deregistration, a
 * closed connection's release, the verdicts of expiry and of health checks. Each command checks
 * everything before it changes anything, so a refusal changes nothing.
 */
final class Instances {
  private final InstantSource clock;
  private final RegistryConfig config;
  private final ServiceCatalog services;
  private final Ownerships owners;
  private final Overrides overrides;
  private final Expiry expiry;
  private final ChangeLog log;
  /** Stamps this node's registrations of ephemeral instances, for peers to order them by. */
  private final HybridClock stamps;
  /** Told when this node's own claim on an instance goes: another node's copy may be shown instead. */
  private Consumer<InstanceAddress> claimGone = address -> { };

  Instances(InstantSource clock, RegistryConfig config, ServiceCatalog services, Ownerships owners,
      Overrides overrides, Expiry expiry, ChangeLog log, HybridClock stamps) {
    this.clock = clock;
    this.stamps = stamps;
    this.config = config;
    this.services = services;
    this.owners = owners;
    this.overrides = overrides;
    this.expiry = expiry;
    this.log = log;
  }
  /** The span the changes made next belong to (a replicated change's); null to end it. */
  void tracing(@Nullable TraceContext trace) {
    log.tracing(trace);
  }


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
    String id = spec.instanceId();
    RegisteredInstance existing = service == null ? null : service.instances.get(id);
    if (ephemeral) {
      Registration registration = OwnershipRules.registration(true, existing != null,
          existing == null ? null : existing.owner, owner);
      owners.checkCapacity(owner, owners.ownedBy(owner) + (registration.addsToCaller(true) ? 1 : 0));
    } else {
      services.usage().checkDurable(key, existing == null ? 1 : 0, metadataBytesAdded(existing, spec));
    }
    if (service == null) {
      services.usage().checkNewService(key);
    }
    return apply(owner, services.getOrCreate(key, ephemeral), spec, id, timings);
  }

  /**
   * Makes the connection's instances in an ephemeral service exactly the batch: missing ones are
   * deregistered, new ones registered, changed ones updated. One invalid instance refuses all. For
   * a {@linkplain Owner#shared shared} owner nothing is missing: the batch only adds and updates.
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
    for (RegisteredInstance instance : owner.isShared() ? List.<RegisteredInstance>of() : owners.owned(owner)) {
      if (instance.service.key.equals(key) && !wanted.containsKey(instance.id())) {
        leaving.add(instance);
      }
    }
    int arriving = 0;
    for (String id : wanted.keySet()) {
      RegisteredInstance existing = service == null ? null : service.instances.get(id);
      Registration registration = OwnershipRules.registration(true, existing != null,
          existing == null ? null : existing.owner, owner);
      arriving += registration.addsToCaller(true) ? 1 : 0;
    }
    owners.checkCapacity(owner, owners.ownedBy(owner) - leaving.size() + arriving);
    if (service == null && !wanted.isEmpty()) {
      services.usage().checkNewService(key);
    }
    for (RegisteredInstance instance : leaving) {
      remove(instance, ChangeCause.DEREGISTER, owner);
      owners.rememberDeregistered(owner, key, instance.id());
    }
    if (wanted.isEmpty()) {
      // Nothing to register: never create a service for it (an empty service nobody would clean up).
      return new BatchRegistered(List.of(), log.revision(), config.defaultTimings().intervalMs());
    }
    Service target = services.getOrCreate(key, true);
    int i = 0;
    for (Map.Entry<String, InstanceSpec> spec : wanted.entrySet()) {
      apply(owner, target, spec.getValue(), spec.getKey(), timings.get(i++));
    }
    // The last revision used, or the current one when the batch changed nothing: the same number.
    long shortest = timings.stream().mapToLong(HeartbeatTimings::intervalMs).min()
        .orElse(config.defaultTimings().intervalMs());
    return new BatchRegistered(List.copyOf(wanted.keySet()), log.revision(), shortest);
  }

  /** Registers or updates {@code spec}, whose {@link InstanceSpec#instanceId() id} the caller has built once. */
  private Registered apply(Owner owner, Service service, InstanceSpec spec, String id, HeartbeatTimings timings) {
    boolean ephemeral = service.ephemeral;
    RegisteredInstance existing = service.instances.get(id);
    long now = clock.millis();
    // Registering counts as a heartbeat, so an ephemeral instance is healthy; a persistent one's
    // health belongs to its checks, and registering it again does not change it.
    boolean healthy = ephemeral || existing == null || existing.view.healthy();
    InstanceView view = overrides.project(service.key, id, spec, healthy, ephemeral);
    if (!ephemeral && (existing == null || !existing.spec.equals(spec))) {
      log.durable(new DurableChange.InstanceSaved(service.key, spec, healthy));
      services.usage().durableChanged(service.key, existing == null ? 1 : 0, metadataBytesAdded(existing, spec));
    }
    if (existing == null) {
      RegisteredInstance created = new RegisteredInstance(service, spec, view, ephemeral ? owner : null, timings, now);
      service.instances.put(id, created);
      services.occupied(service);
      overrides.present(service.key, id);
      if (ephemeral) {
        created.stamp = stamps.tick();
        owners.own(owner, created);
        expiry.added(created, now);
      }
      log.upserted(created, ChangeCause.REGISTER, owner);
      log.claimed(created);
      return new Registered(id, log.revision(), timings);
    }
    existing.spec = spec;
    // Another node's copy until now: its heartbeats were that node's business; from here on, this one's.
    boolean fromPeer = existing.replica();
    if (ephemeral) {
      if (!fromPeer) {
        expiry.reregistered(existing.timings, timings, now);
      }
      owners.own(owner, existing); // a take-over when another connection, or node, owned it
      existing.stamp = stamps.tick();
    }
    existing.timings = timings;
    existing.lastHeartbeatAt = now;
    boolean changed = !view.equals(existing.view);
    existing.view = view;
    if (ephemeral && fromPeer) {
      expiry.added(existing, now);
    } else if (ephemeral) {
      expiry.schedule(existing);
    }
    if (changed) {
      log.upserted(existing, ChangeCause.REGISTER, owner);
    }
    log.claimed(existing); // peers learn the new stamp even when the view did not change
    return new Registered(id, log.revision(), timings);
  }

  /**
   * Removes an instance. Only the owning connection may remove an ephemeral instance; removing
   * what does not exist succeeds with {@code removed = false}.
   */
  Deregistered deregister(Owner owner, ServiceKey key, String id) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null ? null : service.instances.get(id);
    if (instance != null && service.ephemeral && instance.owner != owner) {
      throw new RegistryException(Failure.FORBIDDEN, "instance " + id + " of service " + key
          + " is owned by another connection; only its owner may deregister it");
    }
    if (service == null || service.ephemeral) {
      owners.rememberDeregistered(owner, key, id);
    }
    if (instance == null) {
      return new Deregistered(false, log.revision());
    }
    remove(instance, ChangeCause.DEREGISTER, owner);
    return new Deregistered(true, log.revision());
  }

  /** A heartbeat naming one instance; see {@link OwnershipRules#heartbeat} for what it does. */
  HeartbeatOutcome heartbeat(Owner owner, ServiceKey key, InstanceSpec spec) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null ? null : service.instances.get(spec.instanceId());
    HeartbeatOutcome outcome = OwnershipRules.heartbeat(service != null && !service.ephemeral, instance != null,
        instance != null && instance.owner == owner, instance != null && instance.owner != null
            && instance.owner.isPeer(),
        instance == null && owners.deregistered(owner, key, spec.instanceId()));
    if (outcome == HeartbeatOutcome.REFRESHED) {
      long now = clock.millis();
      expiry.heartbeatsReceived(now, 1);
      beat(instance, now);
    } else if (outcome == HeartbeatOutcome.RECREATED) {
      register(owner, key, true, spec);
    }
    return outcome;
  }

  /** A renewal by instance id: refreshes it as a heartbeat would, and re-creates nothing. */
  HeartbeatOutcome renew(Owner owner, ServiceKey key, String instanceId) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null ? null : service.instances.get(instanceId);
    if (instance == null) {
      return service != null && !service.ephemeral ? HeartbeatOutcome.IGNORED_PERSISTENT
          : HeartbeatOutcome.IGNORED_UNKNOWN;
    }
    HeartbeatOutcome outcome = OwnershipRules.heartbeat(!service.ephemeral, true, instance.owner == owner,
        instance.owner != null && instance.owner.isPeer(), false);
    if (outcome == HeartbeatOutcome.REFRESHED) {
      long now = clock.millis();
      expiry.heartbeatsReceived(now, 1);
      beat(instance, now);
    }
    return outcome;
  }

  /** A heartbeat with an empty body: refreshes every instance the connection owns. */
  int heartbeatAll(Owner owner) {
    long now = clock.millis();
    int count = owners.ownedBy(owner);
    if (count > 0) {
      expiry.heartbeatsReceived(now, count);
      for (RegisteredInstance instance : owners.owned(owner)) {
        beat(instance, now);
      }
    }
    return count;
  }

  /** The connection closed: every ephemeral instance it still owns goes, at once. */
  int release(Owner owner) {
    var released = owners.release(owner);
    for (RegisteredInstance instance : released) {
      remove(instance, ChangeCause.CONNECTION_CLOSED, owner);
    }
    return released.size();
  }

  /** One expiry pass: instances silent past their timeout turn unhealthy, past their delete timeout go. */
  int expire() {
    return expiry.expire(clock.millis(), config.expiryBudget(), new Expiry.Verdicts() {
      @Override
      public void dead(RegisteredInstance instance) {
        remove(instance, ChangeCause.HEARTBEAT_TIMEOUT, null);
      }

      @Override
      public void unhealthy(RegisteredInstance instance) {
        instance.view = instance.view.withHealthy(false);
        log.upserted(instance, ChangeCause.HEARTBEAT_TIMEOUT, null);
        log.claimed(instance);
      }
    });
  }

  /**
   * The server itself did not run for {@code millis} (a long GC pause, a stopped process, a paused
   * VM): no heartbeat could be read meanwhile, so that time must not count against any instance.
   * Called by the ticker, which notices it ran late, before the next expiry pass; heartbeats that
   * waited in the sockets are then read and applied as usual.
   *
   * @return how many instances had their deadlines moved
   */
  int stalled(long millis) {
    long now = clock.millis();
    int[] moved = {0};
    owners.forEachOwned(instance -> {
      expiry.stalled(instance, now, millis);
      moved[0]++;
    });
    expiry.stallEnded(now);
    return moved[0];
  }

  /**
   * Records a health check's result: a failing check marks a persistent instance unhealthy, a
   * passing one healthy again; only a change emits an event. An instance that has gone is ignored.
   */
  boolean healthChecked(ServiceKey key, String instanceId, HealthCheck check) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null || service.ephemeral ? null : service.instances.get(instanceId);
    if (instance == null) {
      return false;
    }
    instance.lastCheck = check;
    boolean healthy = check.healthy();
    if (instance.view.healthy() == healthy) {
      return false;
    }
    instance.view = instance.view.withHealthy(healthy);
    // Durable, so that in a cluster one member's check shows, and is pushed, on every member.
    log.durable(new DurableChange.InstanceSaved(key, instance.spec, healthy));
    log.upserted(instance, ChangeCause.HEALTH_CHECK, null, check.reason());
    return true;
  }

  /**
   * A persistent instance as another member committed it: created or changed to exactly that, its
   * health included, whatever the quotas now say (the log is the truth). Not applied to a service
   * this node holds as ephemeral: the types disagree, and the ephemeral instances here stay.
   */
  void replicated(ServiceKey key, InstanceSpec spec, boolean healthy) {
    Service service = services.getOrCreate(key, false);
    if (service.ephemeral) {
      return;
    }
    String id = spec.instanceId();
    RegisteredInstance existing = service.instances.get(id);
    InstanceView view = overrides.project(key, id, spec, healthy, false);
    HeartbeatTimings timings = HeartbeatTimings.from(spec.metadata(), config.defaultTimings());
    long now = clock.millis();
    if (existing == null) {
      RegisteredInstance created = new RegisteredInstance(service, spec, view, null, timings, now);
      service.instances.put(id, created);
      services.occupied(service);
      overrides.present(key, id);
      services.usage().durableChanged(key, 1, QuotaUsage.bytes(spec.metadata()));
      log.upserted(created, ChangeCause.REPLICATED, null);
      return;
    }
    services.usage().durableChanged(key, 0, metadataBytesAdded(existing, spec));
    existing.spec = spec;
    existing.timings = timings;
    if (!view.equals(existing.view)) {
      existing.view = view;
      log.upserted(existing, ChangeCause.REPLICATED, null);
    }
  }

  /** Another member committed the removal of a persistent instance. */
  void replicatedRemoval(ServiceKey key, String id) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null || service.ephemeral ? null : service.instances.get(id);
    if (instance != null) {
      remove(instance, ChangeCause.REPLICATED, null);
    }
  }

  /** Another member committed an instance's override (an empty one: its removal). */
  void replicatedOverride(ServiceKey key, String id, InstanceOverride value) {
    overrides.set(key, id, value);
    Service service = services.get(key);
    RegisteredInstance instance = service == null ? null : service.instances.get(id);
    if (instance == null) {
      overrides.gone(key, id, clock.millis()); // it waits for its instance, as a restored one does
      return;
    }
    InstanceView view = overrides.project(key, id, instance.spec, instance.view.healthy(), service.ephemeral);
    if (!view.equals(instance.view)) {
      instance.view = view;
      log.upserted(instance, ChangeCause.REPLICATED, null);
    }
  }

  /** Replaces an instance's override (an empty one removes it); subscribers see the new view. */
  InstanceView override(Owner actor, ServiceKey key, String instanceId, InstanceOverride value) {
    RegisteredInstance instance = require(key, instanceId);
    overrides.set(key, instanceId, value);
    InstanceView view = overrides.project(key, instanceId, instance.spec, instance.view.healthy(),
        instance.service.ephemeral);
    if (!view.equals(instance.view)) {
      instance.view = view;
      log.upserted(instance, ChangeCause.OVERRIDE, actor);
    }
    return instance.view;
  }

  /** A persistent instance as storage holds it, at start, with the health its checks last found. */
  void restore(InstanceSpec spec, boolean healthy, ServiceKey key, long now) {
    Service service = services.get(key);
    if (service == null) {
      service = new Service(key, false);
      services.restore(service);
    }
    services.usage().durableChanged(key, 1, QuotaUsage.bytes(spec.metadata()));
    HeartbeatTimings timings = HeartbeatTimings.from(spec.metadata(), config.defaultTimings());
    InstanceView view = overrides.project(key, spec.instanceId(), spec, healthy, false);
    service.instances.put(spec.instanceId(), new RegisteredInstance(service, spec, view, null, timings, now));
    overrides.present(key, spec.instanceId());
  }

  // ---------------------------------------------------------------- other nodes' copies

  /** Who looks for another node's claim when this node's own goes ({@link Replicas}). */
  void onClaimGone(Consumer<InstanceAddress> action) {
    this.claimGone = action;
  }

  /** The key object of the service when it exists, so that copies share it instead of holding one each. */
  ServiceKey canonical(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? key : service.key;
  }

  /** The stamp of this node's own claim on the instance; -1 when it has none (absent, or another node's copy). */
  long localClaimStamp(ServiceKey key, String id) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null || !service.ephemeral ? null : service.instances.get(id);
    return instance == null || instance.replica() ? -1 : instance.stamp;
  }

  /**
   * Shows another node's copy of an ephemeral instance: created, or replacing what is shown — this
   * node's own claim included, whose connection then no longer owns it (a newer registration
   * elsewhere took it over). Applied whatever the quotas say: the instance's node admitted it. Not
   * applied to a service this node holds as persistent: the types disagree, and what is here stays.
   */
  void showReplica(Owner peer, ReplicaChange.Claimed copy, String id) {
    ServiceKey key = copy.service();
    Service service = services.get(key);
    if (service != null && !service.ephemeral) {
      return;
    }
    InstanceSpec spec = copy.instance();
    RegisteredInstance existing = service == null ? null : service.instances.get(id);
    // The id string already shown, so that an update does not bring another copy of it.
    InstanceView view = overrides.project(key, existing == null ? id : existing.id(), spec, copy.healthy(), true);
    if (existing == null) {
      Service target = services.getOrCreate(key, true);
      // Timings are its node's business: a copy is never expired here, and a local registration
      // taking it over brings its own.
      RegisteredInstance created = new RegisteredInstance(target, spec, view, peer, config.defaultTimings(),
          clock.millis());
      created.stamp = copy.stamp();
      target.instances.put(id, created);
      services.occupied(target);
      overrides.present(key, id);
      owners.handToPeer(created, peer);
      log.upserted(created, ChangeCause.REPLICATED, peer);
      return;
    }
    if (!existing.replica()) {
      log.takenOver(existing, peer.node(), copy.stamp());
      expiry.removed(existing);
    }
    owners.handToPeer(existing, peer);
    existing.spec = spec;
    existing.stamp = copy.stamp();
    if (!view.equals(existing.view)) {
      existing.view = view;
      log.upserted(existing, ChangeCause.REPLICATED, peer);
    }
  }

  /**
   * No node claims the instance any more: the copy shown goes (this node's own instances stay);
   * {@code cause}: the member withdrew it ({@code REPLICATED}) or was lost ({@code MEMBER_LOST}).
   */
  void removeReplica(ServiceKey key, String id, ChangeCause cause) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null || !service.ephemeral ? null : service.instances.get(id);
    if (instance != null && instance.replica()) {
      remove(instance, cause, instance.owner);
    }
  }

  /** Each of this node's claims: the ephemeral instances its connections own. */
  void forEachClaim(Consumer<ReplicaChange.Claimed> action) {
    owners.forEachOwned(instance -> {
      if (!instance.replica()) {
        action.accept(instance.claim());
      }
    });
  }

  List<Results.InstanceRecord> records(ServiceKey key) {
    Service service = services.get(key);
    if (service == null) {
      return List.of();
    }
    List<Results.InstanceRecord> records = new ArrayList<>(service.instances.size());
    for (RegisteredInstance instance : service.instances.values()) {
      boolean local = instance.owner != null && !instance.replica();
      InstanceOverride override = overrides.current(key, instance.id());
      records.add(new Results.InstanceRecord(instance.view, instance.owner == null ? null : instance.owner.label(),
          local ? instance.owner.id() : 0, local ? instance.lastHeartbeatAt : null,
          override.isEmpty() ? null : override, instance.lastCheck));
    }
    return records;
  }

  int ownedBy(Owner owner) {
    return owners.ownedBy(owner);
  }

  List<InstanceAddress> ownedAddresses(Owner owner) {
    List<InstanceAddress> addresses = new ArrayList<>();
    for (RegisteredInstance instance : owners.owned(owner)) {
      addresses.add(new InstanceAddress(instance.service.key, instance.id()));
    }
    return addresses;
  }

  @Nullable Owner ownerOf(InstanceAddress address) {
    Service service = services.get(address.service());
    RegisteredInstance instance = service == null ? null : service.instances.get(address.instanceId());
    return instance == null ? null : instance.owner;
  }

  RegisteredInstance require(ServiceKey key, String instanceId) {
    Service service = services.get(key);
    RegisteredInstance instance = service == null ? null : service.instances.get(instanceId);
    if (instance == null) {
      throw new RegistryException(Failure.NOT_FOUND, "instance " + instanceId + " of service " + key
          + " does not exist");
    }
    return instance;
  }

  private void beat(RegisteredInstance instance, long now) {
    instance.lastHeartbeatAt = now;
    if (!instance.view.healthy()) {
      instance.view = instance.view.withHealthy(true);
      expiry.schedule(instance);
      log.upserted(instance, ChangeCause.HEARTBEAT, instance.owner);
      log.claimed(instance);
    }
  }

  private void remove(RegisteredInstance instance, ChangeCause cause, Owner actor) {
    Service service = instance.service;
    service.instances.remove(instance.id());
    instance.removed = true;
    long now = clock.millis();
    if (service.ephemeral) {
      log.withdrawn(instance);
      owners.disown(instance);
      if (!instance.replica()) {
        expiry.removed(instance);
      }
    } else {
      log.durable(DurableChange.Removed.instance(service.key, instance.id()));
      services.usage().durableChanged(service.key, -1, -QuotaUsage.bytes(instance.spec.metadata()));
    }
    overrides.gone(service.key, instance.id(), now);
    log.removed(instance, cause, actor);
    services.vacated(service, now);
    if (service.ephemeral && !instance.replica()) {
      // Another node may still claim it (an older registration it has not yet heard was overtaken).
      claimGone.accept(new InstanceAddress(service.key, instance.id()));
    }
  }

  private static long metadataBytesAdded(RegisteredInstance existing, InstanceSpec spec) {
    return QuotaUsage.bytes(spec.metadata()) - (existing == null ? 0 : QuotaUsage.bytes(existing.spec.metadata()));
  }

  private static RegistryException typeMismatch(Service service) {
    return new RegistryException(Failure.SERVICE_TYPE_MISMATCH, "service " + service.key + " is "
        + service.typeName() + "; register with \"ephemeral\": " + service.ephemeral);
  }
}
