package io.reactiveregistry.server.security;

import io.reactiveregistry.protocol.Route;

/** What a principal may do in a namespace. */
public enum Permission {
  /** {@code service.query}, {@code service.subscribe}, {@code service.list}; the HTTP API and metrics. */
  READ,
  /** {@code instance.register}, {@code instance.heartbeat}, {@code instance.deregister}, {@code instance.batch-register}. */
  WRITE,
  /** The {@code admin.*} routes, {@code admin.trace} included, and the cluster's internal {@code cluster.replicate}. */
  ADMIN;

  /** The permission a route needs; null for {@code server.info}, which any principal may call. */
  public static Permission of(Route route) {
    return switch (route) {
      case SERVICE_QUERY, SERVICE_SUBSCRIBE, SERVICE_LIST -> READ;
      case INSTANCE_REGISTER, INSTANCE_HEARTBEAT, INSTANCE_DEREGISTER, INSTANCE_BATCH_REGISTER -> WRITE;
      case ADMIN_SERVICE_CREATE, ADMIN_SERVICE_UPDATE, ADMIN_SERVICE_DELETE, ADMIN_SERVICE_GET, ADMIN_INSTANCE_UPDATE,
          ADMIN_INSTANCE_PATCH, ADMIN_SERVICE_INSTANCES, ADMIN_CONNECTIONS, ADMIN_TRACE, CLUSTER_REPLICATE -> ADMIN;
      case SERVER_INFO -> null;
    };
  }

  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
