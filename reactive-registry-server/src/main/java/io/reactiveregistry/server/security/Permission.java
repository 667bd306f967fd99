package io.reactiveregistry.server.security;

/** What a principal may do in a namespace. Which route needs which: {@code request.PermissionTable}. */
public enum Permission {
  /** {@code service.query}, {@code service.subscribe}, {@code service.list}; the HTTP API and metrics. */
  READ,
  /** {@code instance.register}, {@code instance.heartbeat}, {@code instance.deregister}, {@code instance.batch-register}. */
  WRITE,
  /** The {@code admin.*} routes, {@code admin.trace} included, and the cluster's internal {@code cluster.replicate}. */
  ADMIN;

  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
