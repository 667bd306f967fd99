package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.InstanceRules;

import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import io.reactiveregistry.server.core.Results.Deregistered;
import io.reactiveregistry.server.core.Results.HeartbeatOutcome;
import io.reactiveregistry.server.core.Results.Registered;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The registry's state machine. Each command either throws a {@link RegistryException} having
 * changed nothing, or applies its changes and records one {@link RegistryEvent} per change, each
 * with the next revision; the caller collects them with {@link #takeEvents()}.
 *
 * <p>Not thread-safe: one writer at a time.
 */
public final class Registry {
  private final InstantSource clock;
  private final RegistryConfig config;
  private final Map<ServiceKey, Service> services = new HashMap<>();
  private final Map<Owner, Ownership> owners = new HashMap<>();
  private final ExpiryQueue expiry = new ExpiryQueue();
  private final List<RegistryEvent> events = new ArrayList<>();
  private long revision;

  /** What one connection owns, and what it deregistered (so a late heartbeat cannot undo that). */
  private static final class Ownership {
    final Set<RegisteredInstance> owned = new LinkedHashSet<>();
    final Set<InstanceAddress> deregistered = new LinkedHashSet<>();
  }

  private record InstanceAddress(ServiceKey service, String instanceId) {}

  public Registry(InstantSource clock, RegistryConfig config) {
    this.clock = clock;
    this.config = config;
  }

  // ---------------------------------------------------------------- commands

  /**
   * Registers an instance, or updates it when its id is already registered. A registration from
   * another connection takes an ephemeral instance over. Counts as a heartbeat.
   */
  public Registered register(Owner owner, ServiceKey key, boolean ephemeral, InstanceSpec spec) {
    HeartbeatTimings timings = HeartbeatTimings.from(spec.metadata(), config.defaultTimings());
    Service service = services.get(key);
    if (service != null && service.ephemeral != ephemeral) {
      throw typeMismatch(service);
    }
    String id = spec.instanceId();
    RegisteredInstance existing = service == null ? null : service.instances.get(id);
    if (ephemeral) {
      checkCapacity(owner, existing);
    }
    long now = clock.millis();
    if (service == null) {
      service = new Service(key, ephemeral);
      services.put(key, service);
    }
    InstanceView view = project(id, spec, true, ephemeral);
    if (existing == null) {
      RegisteredInstance created = new RegisteredInstance(service, spec, view, ephemeral ? owner : null, timings, now);
      service.instances.put(id, created);
      if (ephemeral) {
        ownership(owner).owned.add(created);
        expiry.schedule(created, created.nextDeadline());
      }
      upserted(created, ChangeCause.REGISTER, owner);
    } else {
      existing.spec = spec;
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
      ownership(owner).deregistered.remove(new InstanceAddress(key, id));
    }
    return new Registered(id, revision, timings);
  }

  /**
   * Removes an instance. Only the owning connection may remove an ephemeral instance; removing
   * what does not exist succeeds with {@code removed = false}.
   */
  public Deregistered deregister(Owner owner, ServiceKey key, String ip, int port, String cluster) {
    String id = InstanceSpec.instanceId(ip, port, cluster);
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
  public HeartbeatOutcome heartbeat(Owner owner, ServiceKey key, InstanceSpec spec) {
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
      beat(instance, clock.millis());
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
  public int heartbeatAll(Owner owner) {
    Ownership ownership = owners.get(owner);
    if (ownership == null) {
      return 0;
    }
    long now = clock.millis();
    for (RegisteredInstance instance : ownership.owned) {
      beat(instance, now);
    }
    return ownership.owned.size();
  }

  /** The connection closed: every ephemeral instance it still owns goes, at once. */
  public int release(Owner owner) {
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

  /**
   * Applies heartbeat deadlines that have passed: instances silent past their timeout turn
   * unhealthy, those silent past their delete timeout are removed. Looks at no more than the
   * configured budget of instances, and at none whose deadline has not come.
   *
   * @return how many instances were looked at; equal to the budget when more may be due
   */
  public int expire() {
    long now = clock.millis();
    int looked = 0;
    RegisteredInstance instance;
    while (looked < config.expiryBudget() && (instance = expiry.pollDue(now)) != null) {
      looked++;
      if (instance.deadAt(now)) {
        remove(instance, ChangeCause.HEARTBEAT_TIMEOUT, null);
        continue;
      }
      if (instance.view.healthy() && instance.unhealthyAt(now)) {
        instance.view = instance.view.withHealthy(false);
        upserted(instance, ChangeCause.HEARTBEAT_TIMEOUT, null);
      }
      expiry.schedule(instance, instance.nextDeadline());
    }
    return looked;
  }

  // ---------------------------------------------------------------- service definitions

  /** An operator creates a service; it stays, even empty, until deleted. */
  public ServiceDefinition createService(ServiceKey key, boolean ephemeral, double protectThreshold,
      Map<String, String> metadata) {
    if (services.containsKey(key)) {
      throw new RegistryException(Failure.ALREADY_EXISTS, "service " + key + " already exists");
    }
    Service service = new Service(key, ephemeral);
    service.defined = true;
    service.protectThreshold = ServiceDefinition.checkThreshold(protectThreshold);
    service.metadata = Contract.check(() -> InstanceRules.metadata("metadata", metadata));
    services.put(key, service);
    events.add(new RegistryEvent.ServiceUpdated(key, ++revision, ChangeCause.SERVICE_ADMIN));
    service.revision = revision;
    return service.definition();
  }

  /**
   * Replaces the settings it is given; an absent one is left alone. The type never changes: a
   * different {@code ephemeral} is refused.
   */
  public ServiceDefinition updateService(ServiceKey key, Boolean ephemeral, Double protectThreshold,
      Map<String, String> metadata) {
    Service service = requireService(key);
    if (ephemeral != null && ephemeral != service.ephemeral) {
      throw RegistryException.invalid("ephemeral cannot change: service " + key + " is " + service.typeName());
    }
    double threshold = protectThreshold == null ? service.protectThreshold
        : ServiceDefinition.checkThreshold(protectThreshold);
    Map<String, String> checked = metadata == null ? service.metadata
        : Contract.check(() -> InstanceRules.metadata("metadata", metadata));
    service.defined = true;
    if (threshold != service.protectThreshold || !checked.equals(service.metadata)) {
      service.protectThreshold = threshold;
      service.metadata = checked;
      events.add(new RegistryEvent.ServiceUpdated(key, ++revision, ChangeCause.SERVICE_ADMIN));
      service.revision = revision;
    }
    return service.definition();
  }

  public ServiceDefinition service(ServiceKey key) {
    return requireService(key).definition();
  }

  /** Deletes an empty service; its subscribers see SERVICE_DELETED. */
  public long deleteService(ServiceKey key) {
    Service service = requireService(key);
    if (!service.instances.isEmpty()) {
      throw new RegistryException(Failure.SERVICE_NOT_EMPTY, "service " + key + " still has "
          + service.instances.size() + " instance(s); deregister them first");
    }
    services.remove(key);
    events.add(new RegistryEvent.ServiceDeleted(key, ++revision, ChangeCause.SERVICE_ADMIN));
    return revision;
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
  public ServiceView view(ServiceKey key, ViewFilter filter) {
    Service service = services.get(key);
    if (service == null) {
      return new ServiceView(key, false, true, revision, false, List.of());
    }
    List<InstanceView> all = service.views();
    boolean triggered = ViewRules.protectionTriggered(all, filter, service.protectThreshold);
    return new ServiceView(key, true, service.ephemeral, revision, triggered, ViewRules.select(all, filter, triggered));
  }

  public boolean exists(ServiceKey key) {
    return services.containsKey(key);
  }

  /** Whether a healthy-only view of the service is now in protection mode. */
  public boolean protectionTriggered(ServiceKey key, ViewFilter filter) {
    Service service = services.get(key);
    return service != null && filter.healthyOnly() && service.protectThreshold > 0
        && ViewRules.protectionTriggered(service.views(), filter, service.protectThreshold);
  }

  /**
   * The revision of the last change to this service or its instances, or -1 for an unknown
   * service. Every view of the service is the same while it stays the same.
   */
  public long serviceRevision(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? -1 : service.revision;
  }

  /** The revision of the last change. */
  public long revision() {
    return revision;
  }

  public int ownedBy(Owner owner) {
    Ownership ownership = owners.get(owner);
    return ownership == null ? 0 : ownership.owned.size();
  }

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

  // ---------------------------------------------------------------- internals

  private void beat(RegisteredInstance instance, long now) {
    instance.lastHeartbeatAt = now;
    if (!instance.view.healthy()) {
      instance.view = instance.view.withHealthy(true);
      expiry.schedule(instance, instance.nextDeadline());
      upserted(instance, ChangeCause.HEARTBEAT, instance.owner);
    }
  }

  private void remove(RegisteredInstance instance, ChangeCause cause, Owner actor) {
    instance.service.instances.remove(instance.id());
    instance.removed = true;
    disown(instance);
    events.add(new InstanceRemoved(instance.service.key, ++revision, instance.view, cause, actor));
    instance.service.revision = revision;
  }

  private void upserted(RegisteredInstance instance, ChangeCause cause, Owner actor) {
    events.add(new InstanceUpserted(instance.service.key, ++revision, instance.view, cause, actor));
    instance.service.revision = revision;
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

  private void checkCapacity(Owner owner, RegisteredInstance existing) {
    if (existing != null && existing.owner == owner) {
      return;
    }
    if (ownedBy(owner) >= config.maxInstancesPerOwner()) {
      throw new RegistryException(Failure.LIMIT_EXCEEDED, "this connection already owns "
          + config.maxInstancesPerOwner() + " instances, the most one connection may register");
    }
  }

  private static RegistryException typeMismatch(Service service) {
    return new RegistryException(Failure.SERVICE_TYPE_MISMATCH, "service " + service.key + " is "
        + service.typeName() + "; register with \"ephemeral\": " + service.ephemeral);
  }

  private static InstanceView project(String id, InstanceSpec spec, boolean healthy, boolean ephemeral) {
    return new InstanceView(id, spec.ip(), spec.port(), spec.cluster(), spec.weight(), spec.enabled(), healthy,
        ephemeral, spec.metadata());
  }
}
