package io.reactiveregistry.server.transport;

import io.reactiveregistry.protocol.ErrorCode;

/** A request refused at the edge (routing, limits) with a contract error code. */
final class RequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  RequestException(ErrorCode code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  ErrorCode code() {
    return code;
  }
}
