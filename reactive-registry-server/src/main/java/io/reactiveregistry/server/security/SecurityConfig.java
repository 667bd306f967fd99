package io.reactiveregistry.server.security;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * How the server decides who may use it.
 *
 * @param allowUnauthenticated serve connections from any address without credentials: the
 *     operator's explicit choice to leave protected mode (logged as a warning at start)
 * @param tokenFile the {@link TokenFile} of the bearer tokens the server accepts, or null for
 *     none; with tokens every request needs one, and protected mode is lifted
 */
public record SecurityConfig(boolean allowUnauthenticated, @Nullable Path tokenFile) {
  /** Protected mode: loopback connections only. */
  public static final SecurityConfig DEFAULTS = new SecurityConfig(false, null);

  /** Whether any credentials are configured. */
  public boolean credentials() {
    return tokenFile != null;
  }
}
