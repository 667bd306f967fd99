package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.InstanceRules;
import io.reactiveregistry.server.core.Results.InstanceCounts;
import io.reactiveregistry.server.core.Results.NamespaceSummary;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The services: created by a registration or defined by an operator, their settings, their
 * cleanup once empty, and what they count against the quotas.
 */
final class ServiceCatalog {
  private final Map<ServiceKey, Service> services = new HashMap<>();
  /** Services created by registrations that are empty, waiting for cleanup. */
  private final Set<Service> empty = new LinkedHashSet<>();
  private final QuotaUsage usage;
  private final ChangeLog log;

  ServiceCatalog(Quotas quotas, ChangeLog log) {
    this.usage = new QuotaUsage(quotas);
    this.log = log;
  }

  Service get(ServiceKey key) {
    return services.get(key);
  }

  Service require(ServiceKey key) {
    Service service = services.get(key);
    if (service == null) {
      throw new RegistryException(Failure.NOT_FOUND, "service " + key + " does not exist");
    }
    return service;
  }

  Collection<Service> all() {
    return services.values();
  }

  QuotaUsage usage() {
    return usage;
  }

  /** The service, created (by a registration) when it does not exist yet. */
  Service getOrCreate(ServiceKey key, boolean ephemeral) {
    Service service = services.get(key);
    if (service == null) {
      service = new Service(key, ephemeral);
      services.put(key, service);
      usage.serviceAdded(key);
      saveDurably(service);
    }
    return service;
  }

  /** An operator creates a service; it stays, even empty, until deleted. */
  ServiceDefinition create(Owner actor, ServiceKey key, boolean ephemeral, double protectThreshold,
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
    log.serviceUpdated(service, actor, ChangeCause.SERVICE_ADMIN);
    return service.definition();
  }

  /**
   * Replaces the settings it is given; an absent one is left alone. The type never changes: a
   * different {@code ephemeral} is refused. An updated service is kept until deleted.
   */
  ServiceDefinition update(Owner actor, ServiceKey key, Boolean ephemeral, Double protectThreshold,
      Map<String, String> metadata) {
    Service service = require(key);
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
    empty.remove(service);
    boolean changed = threshold != service.protectThreshold || !checked.equals(service.metadata);
    service.protectThreshold = threshold;
    service.metadata = checked;
    if (changed || newlyDefined) {
      saveDurably(service);
    }
    if (changed) {
      log.serviceUpdated(service, actor, ChangeCause.SERVICE_ADMIN);
    }
    return service.definition();
  }

  /** Deletes an empty service; its subscribers see SERVICE_DELETED. */
  long delete(Owner actor, ServiceKey key) {
    Service service = require(key);
    if (!service.instances.isEmpty()) {
      throw new RegistryException(Failure.SERVICE_NOT_EMPTY, "service " + key + " still has "
          + service.instances.size() + " instance(s); deregister them first");
    }
    empty.remove(service);
    return remove(service, ChangeCause.SERVICE_ADMIN, actor);
  }

  /** Removes services created by registrations that have been empty for {@code emptyForMs}. */
  int cleanUp(long now, long emptyForMs, boolean durable) {
    int removed = 0;
    for (Iterator<Service> it = empty.iterator(); it.hasNext(); ) {
      Service service = it.next();
      if (service.emptySince != 0 && now - service.emptySince >= emptyForMs && (durable || !service.durable())) {
        it.remove();
        remove(service, ChangeCause.CLEANUP, null);
        removed++;
      }
    }
    return removed;
  }

  /** An instance arrived: a service waiting for cleanup is no longer empty. */
  void occupied(Service service) {
    if (service.emptySince != 0 || empty.contains(service)) {
      service.emptySince = 0;
      empty.remove(service);
    }
  }

  /** An instance left: a service created by registrations that is now empty waits for cleanup. */
  void vacated(Service service, long now) {
    if (service.instances.isEmpty() && !service.defined) {
      service.emptySince = now;
      empty.add(service);
    }
  }

  /**
   * A service definition another member committed: created, or its settings replaced, whatever
   * the quotas now say (the log is the truth). A service this node holds with the other type
   * keeps it while it has instances here; an empty one takes the committed type.
   */
  void replicated(DurableChange.ServiceSaved saved, long now) {
    Service service = services.get(saved.service());
    if (service != null && service.ephemeral != saved.ephemeral()) {
      if (!service.instances.isEmpty()) {
        return;
      }
      empty.remove(service);
      remove(service, ChangeCause.REPLICATED, null);
      service = null;
    }
    if (service == null) {
      service = new Service(saved.service(), saved.ephemeral());
      services.put(service.key, service);
      usage.serviceAdded(service.key);
      if (!saved.defined()) {
        vacated(service, now); // created by a registration: it waits for its instance like any empty one
      }
    }
    long metadataBytes = QuotaUsage.bytes(saved.metadata()) - QuotaUsage.bytes(service.metadata);
    usage.durableChanged(service.key, 0, metadataBytes);
    boolean changed = service.protectThreshold != saved.protectThreshold() || !service.metadata.equals(saved.metadata())
        || service.defined != saved.defined();
    service.protectThreshold = saved.protectThreshold();
    service.metadata = saved.metadata();
    service.defined = saved.defined();
    if (saved.defined()) {
      service.emptySince = 0;
      empty.remove(service);
    }
    if (changed) {
      log.serviceUpdated(service, null, ChangeCause.REPLICATED);
    }
  }

  /**
   * Another member committed a service's removal. One that still has instances here (committed
   * after the removal was decided) loses its definition, as storage does, and stays for them.
   */
  void replicatedRemoval(ServiceKey key) {
    Service service = services.get(key);
    if (service == null) {
      return;
    }
    if (!service.instances.isEmpty()) {
      usage.durableChanged(key, 0, -QuotaUsage.bytes(service.metadata));
      service.defined = false;
      service.metadata = Map.of();
      service.protectThreshold = 0;
      log.serviceUpdated(service, null, ChangeCause.REPLICATED);
      return;
    }
    empty.remove(service);
    remove(service, ChangeCause.REPLICATED, null);
  }

  /** Restored from storage at start; what it holds always counts, whatever the quotas now say. */
  void restore(Service service) {
    if (services.put(service.key, service) == null) {
      usage.serviceAdded(service.key);
    }
    usage.durableChanged(service.key, 0, QuotaUsage.bytes(service.metadata));
  }

  void saveDurably(Service service) {
    if (service.durable()) {
      log.durable(new DurableChange.ServiceSaved(service.key, service.ephemeral, service.protectThreshold,
          service.metadata, service.defined));
    }
  }

  ServiceSummary summary(ServiceKey key) {
    Service service = services.get(key);
    return service == null ? null : summary(service);
  }

  private static ServiceSummary summary(Service service) {
    return new ServiceSummary(service.key, service.ephemeral, service.instances.size(), service.healthyCount(),
        service.protectionTriggered());
  }

  List<ServiceSummary> list(String namespace, String group, String prefix) {
    List<ServiceSummary> found = new ArrayList<>();
    for (ServiceKey key : keys(namespace, group)) {
      if (prefix == null || key.service().startsWith(prefix)) {
        found.add(summary(services.get(key)));
      }
    }
    return found;
  }

  /** The services of a namespace (and group, when given), by group then name. */
  List<ServiceKey> keys(String namespace, String group) {
    List<ServiceKey> found = new ArrayList<>();
    for (Service service : services.values()) {
      ServiceKey key = service.key;
      if (key.namespace().equals(namespace) && (group == null || key.group().equals(group))) {
        found.add(key);
      }
    }
    found.sort(Comparator.comparing(ServiceKey::group).thenComparing(ServiceKey::service));
    return found;
  }

  List<NamespaceSummary> namespaces() {
    Map<String, int[]> counts = new TreeMap<>();
    for (Service service : services.values()) {
      int[] namespace = counts.computeIfAbsent(service.key.namespace(), name -> new int[3]);
      namespace[0]++;
      namespace[1] += service.instances.size();
      namespace[2] += service.healthyCount();
    }
    List<NamespaceSummary> found = new ArrayList<>(counts.size());
    counts.forEach((name, n) -> found.add(new NamespaceSummary(name, n[0], n[1], n[2])));
    return found;
  }

  InstanceCounts instanceCounts() {
    int[] counts = new int[4];
    for (Service service : services.values()) {
      for (RegisteredInstance instance : service.instances.values()) {
        counts[(service.ephemeral ? 0 : 2) + (instance.view.healthy() ? 0 : 1)]++;
      }
    }
    return new InstanceCounts(counts[0], counts[1], counts[2], counts[3]);
  }

  /** Every persistent instance, for one round of health checks. */
  List<HealthTarget> healthTargets() {
    List<HealthTarget> targets = new ArrayList<>();
    for (Service service : services.values()) {
      if (service.ephemeral) {
        continue;
      }
      for (RegisteredInstance instance : service.instances.values()) {
        targets.add(new HealthTarget(service.key, instance.id(), instance.spec.ip(), instance.spec.port(),
            instance.view.metadata().get(HealthTarget.HTTP_PATH),
            "https".equalsIgnoreCase(instance.view.metadata().get(HealthTarget.HTTP_SCHEME)), service.metadata,
            HealthTarget.off(instance.view.metadata())));
      }
    }
    return targets;
  }

  int size() {
    return services.size();
  }

  /** The subjects of every durable service definition, for a comparison with what storage holds. */
  void durableSubjects(Consumer<DurableChange.Subject> into) {
    for (Service service : services.values()) {
      if (service.durable()) {
        into.accept(new DurableChange.Subject(DurableChange.Kind.SERVICE, service.key, null));
      }
      if (!service.ephemeral) {
        for (String id : service.instances.keySet()) {
          into.accept(new DurableChange.Subject(DurableChange.Kind.INSTANCE, service.key, id));
        }
      }
    }
  }

  private long remove(Service service, ChangeCause cause, Owner actor) {
    services.remove(service.key);
    if (service.durable()) {
      log.durable(DurableChange.Removed.service(service.key));
    }
    usage.durableChanged(service.key, 0, -QuotaUsage.bytes(service.metadata));
    usage.serviceRemoved(service.key);
    return log.serviceDeleted(service.key, cause, actor);
  }
}
