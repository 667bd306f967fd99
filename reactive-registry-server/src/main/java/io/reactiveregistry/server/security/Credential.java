package io.reactiveregistry.server.security;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A presented token, once verified: who it speaks for, and what can end it — the hash a token file
 * knows it by (removed from the file: revoked), or the instant a signed token expires.
 *
 * @param staticHash the SHA-256 of a token-file token; null for a signed token
 * @param expiresAt when a signed token stops being valid; null for a token-file token
 * @param certificateName the common name of the TLS client certificate that speaks for the
 *     principal; null when a token does
 */
public record Credential(Principal principal, byte @Nullable [] staticHash, @Nullable Instant expiresAt,
    @Nullable String certificateName) {
  public Credential(Principal principal, byte @Nullable [] staticHash, @Nullable Instant expiresAt) {
    this(principal, staticHash, expiresAt, null);
  }
}
