package io.reactiveregistry.server.security;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads permissions as a token file and a signed token's {@code permissions} claim write them:
 * {@code {"prod": ["read", "write"], "team-*": ["read"]}}.
 */
final class Grants {
  private Grants() {}

  /**
   * The grants of a permissions object; a pattern or permission that breaks a rule is refused
   * with {@link IllegalArgumentException} naming it after {@code at}.
   */
  static List<Principal.Grant> parse(Map<String, ?> permissions, String at) {
    List<Principal.Grant> grants = new ArrayList<>();
    for (Map.Entry<String, ?> grant : permissions.entrySet()) {
      String pattern = grant.getKey();
      if (pattern.isEmpty() || pattern.indexOf('*') >= 0 && pattern.indexOf('*') != pattern.length() - 1) {
        throw new IllegalArgumentException(at + ": '" + pattern + "' is not a namespace pattern (a name, a prefix "
            + "ending in *, or *)");
      }
      if (!(grant.getValue() instanceof Collection<?> names)) {
        throw new IllegalArgumentException(at + "." + pattern + " must be a list of permissions (read, write, admin)");
      }
      Set<Permission> granted = EnumSet.noneOf(Permission.class);
      for (Object name : names) {
        try {
          granted.add(Permission.valueOf(String.valueOf(name).toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(at + "." + pattern + ": '" + name
              + "' is not a permission (read, write, admin)", e);
        }
      }
      grants.add(new Principal.Grant(pattern, granted));
    }
    return grants;
  }
}
