package io.reactiveregistry.protocol;

/**
 * The error vocabulary of the contract. Sent as {@code {"code": ..., "message": ...}} in the
 * message of an RSocket {@code APPLICATION_ERROR} frame.
 */
public enum ErrorCode {
  INVALID_PARAM,
  SERVICE_TYPE_MISMATCH,
  NOT_FOUND,
  ALREADY_EXISTS,
  SERVICE_NOT_EMPTY,
  FORBIDDEN,
  UNAUTHENTICATED,
  LIMIT_EXCEEDED,
  UNKNOWN_ROUTE,
  /** A cluster could not commit a durable write in time: no majority of its members reachable. */
  UNAVAILABLE,
  INTERNAL
}
