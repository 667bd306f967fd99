package io.reactiveregistry.server.security;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Safe by default: while no credentials are configured, a connection from anywhere but loopback
 * is refused, so a server started with its defaults on a machine with a public address does not
 * hand the registry (and with it the routing of every service) to whoever reaches the port. The
 * operator leaves it with {@code --allow-unauthenticated}.
 */
public final class ProtectedMode {
  private final boolean on;

  public ProtectedMode(SecurityConfig config) {
    // With credentials every request needs a principal, wherever it comes from.
    this.on = !config.allowUnauthenticated() && !config.credentials();
  }

  public boolean on() {
    return on;
  }

  /** Why a connection from {@code remote} is refused, or null when it is served. */
  public String refusal(SocketAddress remote) {
    if (!on) {
      return null;
    }
    InetAddress address = remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    if (address != null && address.isLoopbackAddress()) {
      return null;
    }
    String from = address == null ? String.valueOf(remote) : address.getHostAddress();
    return "connection from " + from + " refused: this server is in protected mode and serves only loopback "
        + "connections while no credentials are configured; configure tokens (--token-file), or start it with "
        + "--allow-unauthenticated to serve other hosts without credentials (only on a network you trust)";
  }
}
