package io.reactiveregistry.server.core;

/** The core's mutable record of one instance. Only the core's parts ({@link Instances}, {@link Expiry}...) touch it. */
final class RegisteredInstance {
  final Service service;
  /** What the registration said; the view is derived from it. */
  InstanceSpec spec;
  InstanceView view;
  /** The last health check this member ran of it (a persistent instance); null before the first. */
  HealthCheck lastCheck;
  /** The view the last change event carried (null before the first): the "before" of the next one. */
  InstanceView published;
  /**
   * The owner of an ephemeral instance: a connection to this node, or another node whose copy is
   * shown ({@link Owner#isPeer}); null for persistent ones.
   */
  Owner owner;
  /** The hybrid-clock stamp of the registration shown (an ephemeral instance's; see {@link HybridClock}). */
  long stamp;
  /** The hash this node's claim on it adds to the node's digest ({@link ChangeLog}); 0 while not claimed here. */
  long claimHash;
  HeartbeatTimings timings;
  long lastHeartbeatAt;
  /** The deadline of this instance's live entry in the expiry queue; 0 when it has none. */
  long scheduledAt;
  boolean removed;

  RegisteredInstance(Service service, InstanceSpec spec, InstanceView view, Owner owner, HeartbeatTimings timings,
      long now) {
    this.service = service;
    this.spec = spec;
    this.view = view;
    this.owner = owner;
    this.timings = timings;
    this.lastHeartbeatAt = now;
  }

  /** Another node's copy, not an instance of a connection to this node: no heartbeats here, no expiry. */
  boolean replica() {
    return owner != null && owner.isPeer();
  }

  ReplicaChange.Claimed claim() {
    return new ReplicaChange.Claimed(service.key, spec, view.healthy(), stamp);
  }

  String id() {
    return view.instanceId();
  }

  /** The next moment its health or presence changes without a heartbeat. */
  long nextDeadline() {
    return view.healthy()
        ? lastHeartbeatAt + Math.min(timings.timeoutMs(), timings.deleteTimeoutMs())
        : lastHeartbeatAt + timings.deleteTimeoutMs();
  }

  boolean unhealthyAt(long now) {
    return now >= lastHeartbeatAt + timings.timeoutMs();
  }

  boolean deadAt(long now) {
    return now >= lastHeartbeatAt + timings.deleteTimeoutMs();
  }
}
