package io.reactiveregistry.server.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Which connection owns which ephemeral instances, and which instances each one deregistered (so
 * that a late heartbeat cannot bring them back). Persistent instances have no owner.
 */
final class Ownerships {
  private static final class Ownership {
    final Set<RegisteredInstance> owned = new LinkedHashSet<>();
    final Set<InstanceAddress> deregistered = new LinkedHashSet<>();
  }

  private final Map<Owner, Ownership> owners = new HashMap<>();
  private final int maxPerOwner;
  /** What the {@linkplain Owner#shared shared} owner of HTTP-registered instances may own. */
  private final int maxShared;

  Ownerships(int maxPerOwner, int maxShared) {
    this.maxPerOwner = maxPerOwner;
    this.maxShared = maxShared;
  }

  private int max(Owner owner) {
    return owner.isShared() ? maxShared : maxPerOwner;
  }

  int ownedBy(Owner owner) {
    Ownership ownership = owners.get(owner);
    return ownership == null ? 0 : ownership.owned.size();
  }

  /** The instances a connection owns, in the order it registered them; do not change them while iterating. */
  Collection<RegisteredInstance> owned(Owner owner) {
    Ownership ownership = owners.get(owner);
    return ownership == null ? Set.of() : ownership.owned;
  }

  /** Refuses, naming the limit, when the connection (or HTTP's callers together) would own more than it may. */
  void checkCapacity(Owner owner, int ownedAfter) {
    if (ownedAfter > max(owner)) {
      throw new RegistryException(Failure.LIMIT_EXCEEDED, owner.isShared()
          ? "at most " + maxShared + " instances registered over HTTP may live on this node (max-http-instances)"
          : "this connection may own at most " + maxPerOwner + " instances");
    }
  }

  /** The instance is now the caller's: taken from its previous owner, if any. */
  void own(Owner owner, RegisteredInstance instance) {
    if (instance.owner != owner) {
      disown(instance);
      instance.owner = owner;
    }
    Ownership ownership = ownership(owner);
    ownership.owned.add(instance);
    if (!ownership.deregistered.isEmpty()) {
      ownership.deregistered.remove(new InstanceAddress(instance.service.key, instance.id()));
    }
  }

  /**
   * The instance is now shown as another node's copy: no connection here owns it. Copies are not
   * kept in the owners' sets (nothing here heartbeats or releases them), which keeps them small.
   */
  void handToPeer(RegisteredInstance instance, Owner peer) {
    disown(instance);
    instance.owner = peer;
  }

  /** The instance has gone: no connection owns it any more. */
  void disown(RegisteredInstance instance) {
    if (instance.owner != null) {
      Ownership ownership = owners.get(instance.owner);
      if (ownership != null) {
        ownership.owned.remove(instance);
      }
    }
  }

  /** The connection closed: forgets it, and returns what it owned (each instance's owner cleared). */
  Collection<RegisteredInstance> release(Owner owner) {
    Ownership ownership = owners.remove(owner);
    if (ownership == null) {
      return Set.of();
    }
    for (RegisteredInstance instance : ownership.owned) {
      instance.owner = null;
    }
    return ownership.owned;
  }

  void rememberDeregistered(Owner owner, ServiceKey service, String instanceId) {
    Set<InstanceAddress> remembered = ownership(owner).deregistered;
    remembered.add(new InstanceAddress(service, instanceId));
    // Bounded like what a connection may own, so a client cannot grow it without limit.
    if (remembered.size() > max(owner)) {
      Iterator<InstanceAddress> oldest = remembered.iterator();
      oldest.next();
      oldest.remove();
    }
  }

  boolean deregistered(Owner owner, ServiceKey service, String instanceId) {
    Ownership ownership = owners.get(owner);
    return ownership != null && ownership.deregistered.contains(new InstanceAddress(service, instanceId));
  }

  /** Every owned (so ephemeral) instance. */
  void forEachOwned(Consumer<RegisteredInstance> action) {
    for (Ownership ownership : owners.values()) {
      ownership.owned.forEach(action);
    }
  }

  private Ownership ownership(Owner owner) {
    return owners.computeIfAbsent(owner, o -> new Ownership());
  }
}
