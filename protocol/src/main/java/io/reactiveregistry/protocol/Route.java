package io.reactiveregistry.protocol;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Every route of the contract, with the interaction it must be called with. */
public enum Route {
  INSTANCE_REGISTER("instance.register", Interaction.REQUEST_RESPONSE),
  INSTANCE_HEARTBEAT("instance.heartbeat", Interaction.FIRE_AND_FORGET),
  INSTANCE_DEREGISTER("instance.deregister", Interaction.REQUEST_RESPONSE),
  INSTANCE_BATCH_REGISTER("instance.batch-register", Interaction.REQUEST_RESPONSE),
  SERVICE_QUERY("service.query", Interaction.REQUEST_RESPONSE),
  SERVICE_SUBSCRIBE("service.subscribe", Interaction.REQUEST_STREAM),
  SERVICE_LIST("service.list", Interaction.REQUEST_RESPONSE),
  /** The namespaces that hold services, with counts; each caller sees those it may read (any principal). */
  NAMESPACE_LIST("namespace.list", Interaction.REQUEST_RESPONSE),
  CATALOG_SUBSCRIBE("catalog.subscribe", Interaction.REQUEST_STREAM),
  ADMIN_SERVICE_CREATE("admin.service.create", Interaction.REQUEST_RESPONSE),
  ADMIN_SERVICE_UPDATE("admin.service.update", Interaction.REQUEST_RESPONSE),
  ADMIN_SERVICE_DELETE("admin.service.delete", Interaction.REQUEST_RESPONSE),
  ADMIN_SERVICE_GET("admin.service.get", Interaction.REQUEST_RESPONSE),
  ADMIN_INSTANCE_UPDATE("admin.instance.update", Interaction.REQUEST_RESPONSE),
  ADMIN_INSTANCE_PATCH("admin.instance.patch", Interaction.REQUEST_RESPONSE),
  ADMIN_SERVICE_INSTANCES("admin.service.instances", Interaction.REQUEST_RESPONSE),
  /** The streams open on this member that watch a service: who is affected by a change to it. */
  ADMIN_SERVICE_SUBSCRIBERS("admin.service.subscribers", Interaction.REQUEST_RESPONSE),
  ADMIN_CONNECTIONS("admin.connections", Interaction.REQUEST_RESPONSE),
  ADMIN_TRACE("admin.trace", Interaction.REQUEST_STREAM),
  /** The audit trail this member kept, queried by service, instance, cause, principal and time. */
  ADMIN_TRACE_QUERY("admin.trace.query", Interaction.REQUEST_RESPONSE),
  /** A backup of the durable state, as the file's bytes in pieces (admin on every namespace). */
  ADMIN_BACKUP("admin.backup", Interaction.REQUEST_STREAM),
  /** Adds a member to the cluster, answered once it caught up and the change is committed (admin on every namespace). */
  ADMIN_MEMBERS_ADD("admin.members.add", Interaction.REQUEST_RESPONSE),
  /** Removes a member from the cluster, answered once committed (admin on every namespace). */
  ADMIN_MEMBERS_REMOVE("admin.members.remove", Interaction.REQUEST_RESPONSE),
  /**
   * Replaces a member by another (a machine moved or swapped): the new one added, then the old one
   * removed, answered once both changes are committed (admin on every namespace).
   */
  ADMIN_MEMBERS_REPLACE("admin.members.replace", Interaction.REQUEST_RESPONSE),
  SERVER_INFO("server.info", Interaction.REQUEST_RESPONSE),
  /** Internal: a cluster member streams the changes of what its connections own to a peer (admin on every namespace). */
  CLUSTER_REPLICATE("cluster.replicate", Interaction.REQUEST_STREAM);

  private static final Map<String, Route> BY_NAME =
      Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(Route::routeName, Function.identity()));

  private final String routeName;
  private final Interaction interaction;

  Route(String routeName, Interaction interaction) {
    this.routeName = routeName;
    this.interaction = interaction;
  }

  /** The route tag as sent in {@code message/x.rsocket.routing.v0}. */
  public String routeName() {
    return routeName;
  }

  public Interaction interaction() {
    return interaction;
  }

  public static Optional<Route> byName(String routeName) {
    return Optional.ofNullable(BY_NAME.get(routeName));
  }

  @Override
  public String toString() {
    return routeName;
  }
}
