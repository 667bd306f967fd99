package io.reactiveregistry.server.security;

/**
 * How the server decides who may use it.
 *
 * @param allowUnauthenticated serve connections from any address without credentials: the
 *     operator's explicit choice to leave protected mode (logged as a warning at start)
 */
public record SecurityConfig(boolean allowUnauthenticated) {
  /** Protected mode: loopback connections only. */
  public static final SecurityConfig DEFAULTS = new SecurityConfig(false);
}
