package io.reactiveregistry.server.transport;

import io.reactiveregistry.server.admission.ConnectionDoor;

/**
 * Per-connection limits; past them a request gets {@code LIMIT_EXCEEDED} and nothing changes.
 *
 * @param maxPayloadBytes largest request body accepted; also bounds fragment reassembly
 * @param maxSubscriptionsPerConnection open {@code service.subscribe} streams per connection
 * @param maxOutboundBacklogBytes bytes that may wait to be sent to a peer that is not reading
 *     before its connection is closed
 * @param minKeepAliveIntervalMs the shortest keepalive interval a client may ask for in its SETUP;
 *     a shorter one is refused with {@code REJECTED_SETUP} naming this floor
 * @param httpIdleTimeoutMs an HTTP (or not yet upgraded WebSocket) connection that has not
 *     completed a request this long is closed, idle or dribbling its headers (slowloris)
 * @param maxSetupBytes the largest first frame (SETUP) a TCP connection may announce
 * @param setupTimeoutMs a TCP connection that has not sent its whole SETUP this long after it
 *     was accepted is closed
 * @param rsocketConnections connections the TCP port, and the WebSocket port, each hold in all and
 *     from one remote address
 * @param httpConnections the same for the HTTP port
 * @param fragments bytes of unfinished fragmented requests a connection, and the whole server, may hold
 */
public record ServerLimits(int maxPayloadBytes, int maxSubscriptionsPerConnection, int maxOutboundBacklogBytes,
    int minKeepAliveIntervalMs, int httpIdleTimeoutMs, int maxSetupBytes, int setupTimeoutMs,
    ConnectionDoor.Limits rsocketConnections, ConnectionDoor.Limits httpConnections, FragmentLimits fragments) {

  public ServerLimits {
    if (maxPayloadBytes < 1 || maxSubscriptionsPerConnection < 1 || maxOutboundBacklogBytes < 1
        || minKeepAliveIntervalMs < 1 || httpIdleTimeoutMs < 1 || maxSetupBytes < 1 || setupTimeoutMs < 1) {
      throw new IllegalArgumentException("every connection limit must be at least 1: " + this);
    }
  }
  /**
   * @param perConnection bytes one connection's unfinished fragmented requests may hold (never
   *     less than one whole frame: twice the body limit)
   * @param total the same across every connection of the server
   */
  public record FragmentLimits(long perConnection, long total) {
    public FragmentLimits {
      if (perConnection < 1 || total < 1) {
        throw new IllegalArgumentException("fragment limits must be at least 1 byte: " + perConnection + ", " + total);
      }
    }
  }

  /** Four requests of the largest size per connection; a small share of a default heap for the server. */
  public static final FragmentLimits DEFAULT_FRAGMENTS = new FragmentLimits(8L << 20, 64L << 20);

  /** Below this a client's keepalive costs the server more than it tells it (1 ms: 1,000 frames a second). */
  public static final int DEFAULT_MIN_KEEPALIVE_INTERVAL_MS = 1_000;
  public static final int DEFAULT_HTTP_IDLE_TIMEOUT_MS = 30_000;
  public static final int DEFAULT_MAX_SETUP_BYTES = 64 * 1024;
  public static final int DEFAULT_SETUP_TIMEOUT_MS = 10_000;
  /**
   * Far above what one port of one server serves well, but below what a process's descriptors
   * allow on most systems; 5,000 from one address leaves room for many clients behind one NAT.
   */
  public static final ConnectionDoor.Limits DEFAULT_RSOCKET_CONNECTIONS = new ConnectionDoor.Limits(50_000, 5_000);
  /** Health probes, scrapes and the read API need a few connections each. */
  public static final ConnectionDoor.Limits DEFAULT_HTTP_CONNECTIONS = new ConnectionDoor.Limits(1_000, 100);
  public static final ServerLimits DEFAULTS = new ServerLimits(1024 * 1024, 1_000, 32 * 1024 * 1024);

  /** With the default keepalive floor and HTTP timeouts. */
  public ServerLimits(int maxPayloadBytes, int maxSubscriptionsPerConnection, int maxOutboundBacklogBytes) {
    this(maxPayloadBytes, maxSubscriptionsPerConnection, maxOutboundBacklogBytes, DEFAULT_MIN_KEEPALIVE_INTERVAL_MS,
        DEFAULT_HTTP_IDLE_TIMEOUT_MS, DEFAULT_MAX_SETUP_BYTES, DEFAULT_SETUP_TIMEOUT_MS, DEFAULT_RSOCKET_CONNECTIONS,
        DEFAULT_HTTP_CONNECTIONS, DEFAULT_FRAGMENTS);
  }

  public ServerLimits withHttpIdleTimeout(int idleMs) {
    return new ServerLimits(maxPayloadBytes, maxSubscriptionsPerConnection, maxOutboundBacklogBytes,
        minKeepAliveIntervalMs, idleMs, maxSetupBytes, setupTimeoutMs, rsocketConnections, httpConnections, fragments);
  }

  public ServerLimits withSetup(int maxBytes, int timeoutMs) {
    return new ServerLimits(maxPayloadBytes, maxSubscriptionsPerConnection, maxOutboundBacklogBytes,
        minKeepAliveIntervalMs, httpIdleTimeoutMs, maxBytes, timeoutMs, rsocketConnections, httpConnections, fragments);
  }

  public ServerLimits withConnections(ConnectionDoor.Limits rsocket, ConnectionDoor.Limits http) {
    return new ServerLimits(maxPayloadBytes, maxSubscriptionsPerConnection, maxOutboundBacklogBytes,
        minKeepAliveIntervalMs, httpIdleTimeoutMs, maxSetupBytes, setupTimeoutMs, rsocket, http, fragments);
  }

  public ServerLimits withFragments(FragmentLimits value) {
    return new ServerLimits(maxPayloadBytes, maxSubscriptionsPerConnection, maxOutboundBacklogBytes,
        minKeepAliveIntervalMs, httpIdleTimeoutMs, maxSetupBytes, setupTimeoutMs, rsocketConnections, httpConnections,
        value);
  }
}
