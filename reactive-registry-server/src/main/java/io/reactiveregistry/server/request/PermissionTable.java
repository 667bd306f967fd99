package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Permission;
import io.reactiveregistry.server.security.Principal;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The one table of who may call what: for every route, the permission it needs and where. Every
 * door's requests are checked here and nowhere else (an ArchUnit rule says so); a route missing
 * from the table fails the server's start, and the permission matrix test takes its routes from
 * {@link Route#values()}.
 */
public final class PermissionTable {
  /** Where a route's permission must be held. */
  public enum Scope {
    /**
     * In the namespace the request names; a request that may name none (the audit trail's filter)
     * and does not, in every namespace.
     */
    REQUEST_NAMESPACE,
    /** In every namespace ({@code *}): the route crosses namespaces. */
    EVERY_NAMESPACE,
    /** No permission: any principal (with credentials configured, a request still needs one). */
    ANY_PRINCIPAL
  }

  /** A route's rule. */
  public record Rule(@Nullable Permission permission, Scope scope) {}

  private static final Map<Route, Rule> RULES = new EnumMap<>(Route.class);

  static {
    Rule read = new Rule(Permission.READ, Scope.REQUEST_NAMESPACE);
    Rule write = new Rule(Permission.WRITE, Scope.REQUEST_NAMESPACE);
    Rule admin = new Rule(Permission.ADMIN, Scope.REQUEST_NAMESPACE);
    Rule adminEverywhere = new Rule(Permission.ADMIN, Scope.EVERY_NAMESPACE);
    for (Route route : Route.values()) {
      RULES.put(route, switch (route) {
        case SERVICE_QUERY, SERVICE_SUBSCRIBE, SERVICE_LIST, CATALOG_SUBSCRIBE -> read;
        // A heartbeat for everything its connection owns names no namespace: what the connection
        // owns it registered with write permission, so write in some namespace is asked (below).
        case INSTANCE_REGISTER, INSTANCE_HEARTBEAT, INSTANCE_DEREGISTER, INSTANCE_BATCH_REGISTER -> write;
        case ADMIN_SERVICE_CREATE, ADMIN_SERVICE_UPDATE, ADMIN_SERVICE_DELETE, ADMIN_SERVICE_GET, ADMIN_INSTANCE_UPDATE,
            ADMIN_INSTANCE_PATCH, ADMIN_SERVICE_INSTANCES, ADMIN_SERVICE_SUBSCRIBERS, ADMIN_TRACE, ADMIN_TRACE_QUERY
            -> admin;
        // Connections, backups, membership and the replication stream cross namespaces; cluster.replicate is
        // internal (a peer, or an operator with admin everywhere).
        case ADMIN_CONNECTIONS, ADMIN_BACKUP, ADMIN_MEMBERS_ADD, ADMIN_MEMBERS_REMOVE, ADMIN_MEMBERS_REPLACE,
            CLUSTER_REPLICATE -> adminEverywhere;
        // Any principal may ask; the answer lists only the namespaces whose services it may list (allows, below).
        case SERVER_INFO, NAMESPACE_LIST -> new Rule(null, Scope.ANY_PRINCIPAL);
      });
    }
  }

  private final Access access;

  PermissionTable(Access access) {
    this.access = access;
  }

  /** The rule of {@code route}. */
  public static Rule rule(Route route) {
    return RULES.get(route);
  }

  /**
   * Refuses a request of {@code route} acting in {@code namespace} (null: names none) that its
   * principal may not make: {@code UNAUTHENTICATED} without a principal, {@code FORBIDDEN} without
   * the grant, naming the permission and the namespace.
   */
  void check(@Nullable Principal principal, Route route, @Nullable String namespace) {
    Rule rule = RULES.get(route);
    switch (rule.scope()) {
      case REQUEST_NAMESPACE -> access.require(principal, rule.permission(), namespace);
      case EVERY_NAMESPACE -> access.require(principal, rule.permission(), null);
      case ANY_PRINCIPAL -> access.require(principal, null, null);
    }
  }

  /**
   * Whether {@code principal} holds {@code route}'s permission in {@code namespace}, without refusing:
   * for an answer that shows each caller only what it may see ({@code namespace.list} shows the
   * namespaces whose services the caller may list).
   */
  boolean allows(@Nullable Principal principal, Route route, String namespace) {
    if (!access.required()) {
      return true;
    }
    Rule rule = RULES.get(route);
    return principal != null && (rule.permission() == null
        || principal.may(rule.permission(), rule.scope() == Scope.EVERY_NAMESPACE ? null : namespace));
  }

  /** A heartbeat for everything its connection owns: write permission in some namespace. */
  void checkSomewhere(@Nullable Principal principal, Route route) {
    access.requireSomewhere(principal, RULES.get(route).permission());
  }

  /** A read that names no service and is not a route (metrics, the cluster's state): any principal. */
  void checkPrincipal(@Nullable Principal principal) {
    access.require(principal, null, null);
  }
}
