package io.reactiveregistry.server.security;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.server.errors.EdgeRefusal;
import org.jspecify.annotations.Nullable;

/**
 * Who may do what: with no tokens configured every request is served (protected mode decides who
 * may connect); with tokens, every request needs a principal — its own bearer token, or the one
 * its connection presented in the SETUP — and the permission its route needs on its namespace.
 * A refusal names the rule and never echoes the token.
 */
public final class Access {
  /** No credentials configured: every request is served. */
  public static final Access OPEN = new Access(null, () -> { });

  private final @Nullable StaticTokens tokens;
  private final Runnable onFailure;

  /** @param onFailure called for each token presented that is not one (counted in a meter) */
  public Access(@Nullable StaticTokens tokens, Runnable onFailure) {
    this.tokens = tokens;
    this.onFailure = onFailure;
  }

  /** Whether requests need a principal. */
  public boolean required() {
    return tokens != null;
  }

  /** The tokens in force; null when none are configured. */
  public @Nullable StaticTokens tokens() {
    return tokens;
  }

  /** The entry of a presented token; refused with {@code UNAUTHENTICATED} when it is not one. */
  public TokenFile.Entry authenticate(String token) {
    if (tokens == null) {
      throw new IllegalStateException("no tokens are configured");
    }
    return tokens.match(token).orElseThrow(() -> {
      onFailure.run();
      return new EdgeRefusal(ErrorCode.UNAUTHENTICATED, "the bearer token is not valid: unknown, or revoked");
    });
  }

  /**
   * Refuses a request that may not do {@code permission} in {@code namespace} (null: in every
   * namespace): {@code UNAUTHENTICATED} without a principal, {@code FORBIDDEN} without the grant.
   * A null permission asks only for a principal.
   */
  public void require(@Nullable Principal principal, @Nullable Permission permission, @Nullable String namespace) {
    if (tokens == null) {
      return;
    }
    Principal who = present(principal);
    if (permission != null && !who.may(permission, namespace)) {
      throw new EdgeRefusal(ErrorCode.FORBIDDEN, "'" + who.name() + "' lacks the " + permission.wireName()
          + " permission on " + (namespace == null ? "every namespace (*)" : "namespace '" + namespace + "'"));
    }
  }

  /** Refuses a request whose principal has {@code permission} in no namespace at all. */
  public void requireSomewhere(@Nullable Principal principal, Permission permission) {
    if (tokens == null) {
      return;
    }
    Principal who = present(principal);
    if (!who.maySomewhere(permission)) {
      throw new EdgeRefusal(ErrorCode.FORBIDDEN, "'" + who.name() + "' lacks the " + permission.wireName()
          + " permission on any namespace");
    }
  }

  private static Principal present(@Nullable Principal principal) {
    if (principal == null) {
      throw new EdgeRefusal(ErrorCode.UNAUTHENTICATED, "this server requires a bearer token ("
          + "message/x.rsocket.authentication.v0 metadata in the SETUP or in the request; HTTP: Authorization: "
          + "Bearer)");
    }
    return principal;
  }
}
