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
  /** Another member of the cluster committed the change (a durable one); this node applied it. */
  REPLICATED
}
