package io.reactiveregistry.protocol;

/** Constants of the contract: its version, MIME types and defaults. */
public final class Protocol {
  /** The contract version reported by {@code server.info}. */
  public static final int VERSION = 1;

  public static final String DATA_MIME_TYPE = "application/json";
  public static final String METADATA_MIME_TYPE = "message/x.rsocket.composite-metadata.v0";
  public static final String ROUTING_MIME_TYPE = "message/x.rsocket.routing.v0";
  /**
   * The composite-metadata entry carrying a caller's W3C trace context: its content is the value of
   * a {@code traceparent} header in US-ASCII ({@code 00-<trace id>-<parent id>-<flags>}), exactly as
   * HTTP callers send it in the header. RSocket defines no W3C entry of its own (only Zipkin's
   * binary one), so this one follows the extensions' naming.
   */
  public static final String TRACE_MIME_TYPE = "message/x.rsocket.w3c-traceparent.v0";

  public static final String DEFAULT_NAMESPACE = "public";
  public static final String DEFAULT_GROUP = "DEFAULT_GROUP";
  public static final String DEFAULT_CLUSTER = "DEFAULT";

  public static final int DEFAULT_TCP_PORT = 7070;

  /**
   * The one request a server sends a client: a fire-and-forget asking it to move to another member
   * ({@link io.reactiveregistry.protocol.message.MoveRequest}); sent only to clients whose setup
   * data lists {@link #FEATURE_MOVE}.
   */
  public static final String CONNECTION_MOVE_ROUTE = "connection.move";
  /** The feature a client names in its setup data when it honours {@link #CONNECTION_MOVE_ROUTE}. */
  public static final String FEATURE_MOVE = "move";

  /** Metadata keys with which an instance overrides its heartbeat timings (milliseconds). */
  public static final String HEARTBEAT_INTERVAL_KEY = "preserved.heart.beat.interval";
  public static final String HEARTBEAT_TIMEOUT_KEY = "preserved.heart.beat.timeout";
  public static final String DELETE_TIMEOUT_KEY = "preserved.ip.delete.timeout";

  private Protocol() {}
}
