package io.reactiveregistry.server.core;

/** Why the core refused a command. The transport maps each to one wire error code. */
public enum Failure {
  INVALID_PARAM,
  SERVICE_TYPE_MISMATCH,
  NOT_FOUND,
  ALREADY_EXISTS,
  SERVICE_NOT_EMPTY,
  FORBIDDEN,
  LIMIT_EXCEEDED,
  /** Durable storage is too far behind to take another write now; a retry later may succeed. */
  STORAGE_BEHIND,
  /** A cluster could not commit a durable write: no majority of its members was reachable in time. */
  UNAVAILABLE,
  /** Durable storage has failed; durable writes are refused until the server restarts. */
  STORAGE_FAILED
}
