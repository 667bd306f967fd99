package io.reactiveregistry.server.core;

/** Why a change happened; it travels with every event into the audit trail and metrics. */
public enum ChangeCause {
  REGISTER,
  DEREGISTER,
  /** A heartbeat restored an unhealthy instance. */
  HEARTBEAT,
  HEARTBEAT_TIMEOUT,
  CONNECTION_CLOSED,
  OVERRIDE,
  HEALTH_CHECK,
  CLEANUP,
  SERVICE_ADMIN,
  /**
   * Another member of the cluster made the change and this node applied it: a durable change it
   * committed, or a change to the ephemeral instances its connections own.
   */
  REPLICATED,
  /**
   * The copy of an ephemeral instance shown for another member went because that member was lost
   * past the grace period, or left the cluster (and no other member claims the instance).
   */
  MEMBER_LOST
}
