package io.reactiveregistry.server.core;

/** The core's mutable record of one instance. Only the core's parts ({@link Instances}, {@link Expiry}...) touch it. */
final class RegisteredInstance {
  final Service service;
  /** What the registration said; the view is derived from it. */
  InstanceSpec spec;
  InstanceView view;
  /** The owning connection of an ephemeral instance; null for persistent ones. */
  Owner owner;
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
