package io.reactiveregistry.server.security;

import java.util.List;
import java.util.Set;

/**
 * Who a token speaks for, and what it may do where: grants of permissions on namespace patterns
 * ({@code *} every namespace, {@code prod} exactly that one, {@code team-*} every one starting with
 * {@code team-}).
 */
public record Principal(String name, List<Grant> grants) {

  public record Grant(String namespacePattern, Set<Permission> permissions) {
    public Grant {
      permissions = Set.copyOf(permissions);
    }

    boolean covers(String namespace) {
      if (namespacePattern.equals("*")) {
        return true;
      }
      if (namespacePattern.endsWith("*")) {
        return namespace.startsWith(namespacePattern.substring(0, namespacePattern.length() - 1));
      }
      return namespacePattern.equals(namespace);
    }
  }

  public Principal {
    grants = List.copyOf(grants);
  }

  /** Whether it may do {@code permission} in {@code namespace}; a null namespace means every one ({@code *}). */
  public boolean may(Permission permission, String namespace) {
    for (Grant grant : grants) {
      if (grant.permissions().contains(permission)
          && (namespace == null ? grant.namespacePattern().equals("*") : grant.covers(namespace))) {
        return true;
      }
    }
    return false;
  }

  /** Whether it may do {@code permission} in at least one namespace. */
  public boolean maySomewhere(Permission permission) {
    for (Grant grant : grants) {
      if (grant.permissions().contains(permission)) {
        return true;
      }
    }
    return false;
  }
}
