package io.reactiveregistry.server.security;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import org.jspecify.annotations.Nullable;

/**
 * Who may do what: with no tokens configured every request is served (protected mode decides who
 * may connect); with tokens, every request needs a principal — its own bearer token, or the one
 * its connection presented in the SETUP — and the permission its route needs on its namespace.
 * A refusal names the rule and never echoes the token.
 */
public final class Access {
  /** No credentials configured: every request is served. */
  public static final Access OPEN = new Access(null, null,
      new FailedAuthentications(1, Duration.ZERO, InstantSource.system()), () -> { });

  private final @Nullable StaticTokens tokens;
  private final @Nullable JwtVerifier jwt;
  private final FailedAuthentications failures;
  private final Runnable onFailure;

  /**
   * @param tokens the token file's tokens, or null
   * @param jwt the verifier of signed tokens, or null
   * @param failures the tokens that were not valid, by address: too many, and an address is refused
   * @param onFailure called for each token refused (counted in a meter)
   */
  public Access(@Nullable StaticTokens tokens, @Nullable JwtVerifier jwt, FailedAuthentications failures,
      Runnable onFailure) {
    this.tokens = tokens;
    this.jwt = jwt;
    this.failures = failures;
    this.onFailure = onFailure;
  }

  /** Whether requests need a principal. */
  public boolean required() {
    return tokens != null || jwt != null;
  }

  /** The verifier of signed tokens; null when none is configured. */
  public @Nullable JwtVerifier jwt() {
    return jwt;
  }

  /** The tokens in force; null when none are configured. */
  public @Nullable StaticTokens tokens() {
    return tokens;
  }

  /**
   * What a presented token speaks for: a signed token (JWT shape) when keys are configured, else a
   * token of the file. Refused with {@code UNAUTHENTICATED} when it is neither, and with
   * {@code LIMIT_EXCEEDED} while {@code from} has presented too many that were not.
   */
  public Credential authenticate(String token, @Nullable SocketAddress from) {
    Duration blocked = failures.blockedFor(from);
    if (!blocked.isZero()) {
      onFailure.run();
      throw new EdgeRefusal(ErrorCode.LIMIT_EXCEEDED, "too many tokens that are not valid came from "
          + host(from) + ": every token from it is refused for " + Math.max(1, blocked.toSeconds())
          + " s more");
    }
    try {
      if (jwt != null && JwtVerifier.looksLikeJwt(token)) {
        return jwt.verify(token);
      }
      if (tokens != null) {
        TokenFile.Entry entry = tokens.match(token).orElse(null);
        if (entry != null) {
          return new Credential(entry.principal(), entry.sha256(), null);
        }
      }
    } catch (EdgeRefusal refusal) {
      failures.failed(from);
      onFailure.run();
      throw refusal;
    }
    failures.failed(from);
    onFailure.run();
    throw new EdgeRefusal(ErrorCode.UNAUTHENTICATED, "the bearer token is not valid: unknown, or revoked");
  }

  /**
   * The principal a TLS client certificate speaks for: the token-file entry named after its
   * subject's common name, marked {@code clientCertificate}; null when none is.
   */
  public @Nullable Credential certificate(@Nullable String commonName) {
    if (tokens == null || commonName == null) {
      return null;
    }
    return tokens.byCertificate(commonName)
        .map(entry -> new Credential(entry.principal(), null, null, commonName)).orElse(null);
  }

  /**
   * Refuses a request that may not do {@code permission} in {@code namespace} (null: in every
   * namespace): {@code UNAUTHENTICATED} without a principal, {@code FORBIDDEN} without the grant.
   * A null permission asks only for a principal.
   */
  public void require(@Nullable Principal principal, @Nullable Permission permission, @Nullable String namespace) {
    if (!required()) {
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
    if (!required()) {
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

  private static String host(@Nullable SocketAddress from) {
    return from instanceof InetSocketAddress inet && inet.getAddress() != null ? inet.getAddress().getHostAddress()
        : "an unknown address";
  }
}
