package io.reactiveregistry.server.security;

import io.reactiveregistry.server.tls.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How the server decides who may use it.
 *
 * @param allowUnauthenticated serve connections from any address without credentials: the
 *     operator's explicit choice to leave protected mode (logged as a warning at start)
 * @param tokenFile the {@link TokenFile} of the bearer tokens the server accepts, or null for
 *     none; with tokens every request needs one, and protected mode is lifted
 * @param jwtKeysFile the keys that verify signed bearer tokens (a JWK Set, or PEM public keys),
 *     or null for none; like a token file, it makes every request need a token
 * @param maxFailedAuthentications tokens that are not valid one address may present in a window;
 *     past it, every token from that address is refused until the window ends
 * @param failedAuthenticationWindow that window
 * @param tls the PEM files of TLS on every port; null for plain TCP, WebSocket and HTTP
 * @param peerTokenFile in a cluster whose members need tokens: a file holding the bearer token this
 *     node presents to its peers (a principal with {@code admin} on every namespace); null for none
 */
public record SecurityConfig(boolean allowUnauthenticated, @Nullable Path tokenFile, @Nullable Path jwtKeysFile,
    int maxFailedAuthentications, Duration failedAuthenticationWindow, @Nullable TlsFiles tls,
    @Nullable Path peerTokenFile) {
  private static final int DEFAULTS_MAX_FAILED = 10;
  private static final Duration DEFAULTS_WINDOW = Duration.ofMinutes(1);
  /** Protected mode: loopback connections only. */
  public static final SecurityConfig DEFAULTS = new SecurityConfig(false, null, null, DEFAULTS_MAX_FAILED,
      DEFAULTS_WINDOW, null, null);

  public SecurityConfig {
    if (maxFailedAuthentications < 1) {
      throw new IllegalArgumentException("max failed authentications must be at least 1");
    }
    if (failedAuthenticationWindow.toMillis() < 1) {
      throw new IllegalArgumentException("the failed-authentication window must be at least 1 ms");
    }
  }

  public SecurityConfig(boolean allowUnauthenticated, @Nullable Path tokenFile, @Nullable Path jwtKeysFile,
      int maxFailedAuthentications, Duration failedAuthenticationWindow, @Nullable TlsFiles tls) {
    this(allowUnauthenticated, tokenFile, jwtKeysFile, maxFailedAuthentications, failedAuthenticationWindow, tls,
        null);
  }

  public SecurityConfig(boolean allowUnauthenticated, @Nullable Path tokenFile) {
    this(allowUnauthenticated, tokenFile, null);
  }

  public SecurityConfig(boolean allowUnauthenticated, @Nullable Path tokenFile, @Nullable Path jwtKeysFile) {
    this(allowUnauthenticated, tokenFile, jwtKeysFile, DEFAULTS_MAX_FAILED, DEFAULTS_WINDOW, null);
  }

  public SecurityConfig(boolean allowUnauthenticated, @Nullable Path tokenFile, @Nullable Path jwtKeysFile,
      int maxFailedAuthentications, Duration failedAuthenticationWindow) {
    this(allowUnauthenticated, tokenFile, jwtKeysFile, maxFailedAuthentications, failedAuthenticationWindow, null);
  }

  /** The same, with TLS on every port from these files. */
  public SecurityConfig withTls(@Nullable TlsFiles files) {
    return new SecurityConfig(allowUnauthenticated, tokenFile, jwtKeysFile, maxFailedAuthentications,
        failedAuthenticationWindow, files, peerTokenFile);
  }

  /** The same, presenting the token in this file to the cluster's peers. */
  public SecurityConfig withPeerTokenFile(@Nullable Path file) {
    return new SecurityConfig(allowUnauthenticated, tokenFile, jwtKeysFile, maxFailedAuthentications,
        failedAuthenticationWindow, tls, file);
  }

  /** Whether any credentials are configured. */
  public boolean credentials() {
    return tokenFile != null || jwtKeysFile != null;
  }
}
