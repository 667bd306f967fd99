package io.reactiveregistry.server.core;

import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceDeleted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceUpdated;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the commands since the last take changed, in order: one {@link RegistryEvent} per change,
 * each with the next revision, for subscribers; and the {@link DurableChange}s, for storage, in the
 * order they were decided; and the changes to this node's claims ({@link ReplicaChange}), for its
 * peers.
 */
final class ChangeLog {
  /** Above this many claims changed in one command, their map is replaced rather than cleared. */
  private static final int SMALL = 16;
  private final List<RegistryEvent> events = new ArrayList<>();
  private final List<DurableChange> durable = new ArrayList<>();
  /** Changes to this node's claims, the latest per instance (peers need no more). */
  private Map<InstanceAddress, ReplicaChange> claims = new LinkedHashMap<>();
  /** The digest of every claim of this node, kept up to date by {@link #claimed} and {@link #withdrawn}. */
  private int claimCount;
  private long claimsHash;
  private long revision;
  /** The principal the command being applied acts for; null for the server's own and anonymous ones. */
  private @Nullable String principal;
  /** The span of the request whose command is being applied; null when it is not traced. */
  private @Nullable TraceContext trace;

  /** The revision of the last change. */
  long revision() {
    return revision;
  }

  /** Revisions continue above {@code last}: what storage restored, or reserved. */
  void continueAbove(long last) {
    revision = Math.max(revision, last);
  }

  void actingFor(@Nullable String principal) {
    this.principal = principal;
  }

  void tracing(@Nullable TraceContext trace) {
    this.trace = trace;
  }

  void upserted(RegisteredInstance instance, ChangeCause cause, Owner actor) {
    upserted(instance, cause, actor, null);
  }

  /** {@code reason}: why, in words, where the cause alone does not say (a health check's outcome). */
  void upserted(RegisteredInstance instance, ChangeCause cause, Owner actor, @Nullable String reason) {
    events.add(new InstanceUpserted(instance.service.key, ++revision, instance.view, instance.published, cause,
        actor, principal, reason, trace));
    instance.published = instance.view;
    instance.service.revision = revision;
  }

  void removed(RegisteredInstance instance, ChangeCause cause, Owner actor) {
    events.add(new InstanceRemoved(instance.service.key, ++revision, instance.view, cause, actor, principal,
        trace));
    instance.service.revision = revision;
  }

  void serviceUpdated(Service service, Owner actor, ChangeCause cause) {
    events.add(new ServiceUpdated(service.key, ++revision, cause, actor, principal, trace));
    service.revision = revision;
  }

  /** @return the deletion's revision */
  long serviceDeleted(ServiceKey key, ChangeCause cause, Owner actor) {
    events.add(new ServiceDeleted(key, ++revision, cause, actor, principal, trace));
    return revision;
  }

  /** A claim of this node (an ephemeral instance one of its connections owns) was made or changed. */
  void claimed(RegisteredInstance instance) {
    if (instance.service.ephemeral && !instance.replica()) {
      ReplicaChange.Claimed claim = instance.claim();
      claims.put(new InstanceAddress(instance.service.key, instance.id()), trace == null ? claim : claim.in(trace));
      uncount(instance);
      instance.claimHash = ReplicaDigest.hashOf(claim);
      claimsHash += instance.claimHash;
      claimCount++;
    }
  }

  /** This node no longer claims the instance: it went, or another node's copy took it over. */
  void withdrawn(RegisteredInstance instance) {
    withdrawn(instance, null, 0);
  }

  /** This node's claim was taken over by {@code node}'s newer one, stamped {@code stamp}. */
  void takenOver(RegisteredInstance instance, String node, long stamp) {
    withdrawn(instance, node, stamp);
  }

  private void withdrawn(RegisteredInstance instance, @Nullable String takenOverBy, long stamp) {
    if (instance.service.ephemeral && !instance.replica()) {
      InstanceAddress address = new InstanceAddress(instance.service.key, instance.id());
      claims.put(address, new ReplicaChange.Withdrawn(address.service(), address.instanceId(), takenOverBy, stamp,
          trace));
      uncount(instance);
    }
  }

  private void uncount(RegisteredInstance instance) {
    if (instance.claimHash != 0) {
      claimsHash -= instance.claimHash;
      claimCount--;
      instance.claimHash = 0;
    }
  }

  /** The digest of this node's claims, as of the last change recorded. */
  ReplicaDigest claimsDigest() {
    return new ReplicaDigest(claimCount, claimsHash);
  }

  void durable(DurableChange change) {
    durable.add(change);
  }

  List<RegistryEvent> takeEvents() {
    if (events.isEmpty()) {
      return List.of();
    }
    List<RegistryEvent> taken = List.copyOf(events);
    events.clear();
    return taken;
  }

  List<ReplicaChange> takeReplicaChanges() {
    if (claims.isEmpty()) {
      return List.of();
    }
    List<ReplicaChange> taken = List.copyOf(claims.values());
    if (taken.size() > SMALL) {
      // A connection's release withdraws all it owned at once; clear() would keep the table that
      // grew for it, and walk all of it again after every later command.
      claims = new LinkedHashMap<>();
    } else {
      claims.clear();
    }
    return taken;
  }

  List<DurableChange> takeDurableChanges() {
    if (durable.isEmpty()) {
      return List.of();
    }
    List<DurableChange> taken = List.copyOf(durable);
    durable.clear();
    return taken;
  }
}
