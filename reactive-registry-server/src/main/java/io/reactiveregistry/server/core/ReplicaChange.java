package io.reactiveregistry.server.core;

import org.jspecify.annotations.Nullable;

/**
 * A change to what one node claims: the ephemeral instances its own connections own. A node
 * streams these to its peers, which keep them as that node's copies ({@link Command.ApplyReplica}).
 * Per instance, the latest change is all that matters, so changes to one instance may be coalesced.
 */
public sealed interface ReplicaChange {
  ServiceKey service();

  String instanceId();

  /**
   * The span of the request that made the change, when it was traced: the member that receives
   * the change continues the trace (its replication and pushes are spans of it). Not part of the
   * claim: digests and comparisons ignore it, and a snapshot carries none.
   */
  @Nullable TraceContext trace();

  /** The same change, made in {@code trace} (null: in none). */
  ReplicaChange in(@Nullable TraceContext trace);

  /** Which instance the change is about: changes to one address may be coalesced. */
  default InstanceAddress address() {
    return new InstanceAddress(service(), instanceId());
  }

  /**
   * The node claims the instance: as registered, with its health, stamped by the node's hybrid
   * logical clock when it was last registered (the stamp orders claims of the same instance by
   * different nodes: the higher one is shown).
   */
  record Claimed(ServiceKey service, InstanceSpec instance, boolean healthy, long stamp, @Nullable TraceContext trace)
      implements ReplicaChange {
    public Claimed(ServiceKey service, InstanceSpec instance, boolean healthy, long stamp) {
      this(service, instance, healthy, stamp, null);
    }

    @Override
    public Claimed in(@Nullable TraceContext trace) {
      return new Claimed(service, instance, healthy, stamp, trace);
    }

    @Override
    public String instanceId() {
      return instance.instanceId();
    }

    /** The wall-clock millisecond of the stamp, by the clock of the node that issued it. */
    public long stampMillis() {
      return HybridClock.millisOf(stamp);
    }
  }

  /**
   * The node no longer claims the instance: it went, or another node's newer registration took it
   * over — then {@code takenOverBy} names that node and {@code stamp} its claim's stamp, so that a
   * third node that has not yet heard that claim keeps showing the instance until it does (the two
   * travel on different streams), instead of removing it and adding it back.
   */
  record Withdrawn(ServiceKey service, String instanceId, @Nullable String takenOverBy, long stamp,
      @Nullable TraceContext trace) implements ReplicaChange {
    public Withdrawn(ServiceKey service, String instanceId) {
      this(service, instanceId, null, 0, null);
    }

    public Withdrawn(ServiceKey service, String instanceId, @Nullable String takenOverBy, long stamp) {
      this(service, instanceId, takenOverBy, stamp, null);
    }

    @Override
    public Withdrawn in(@Nullable TraceContext trace) {
      return new Withdrawn(service, instanceId, takenOverBy, stamp, trace);
    }
  }
}
