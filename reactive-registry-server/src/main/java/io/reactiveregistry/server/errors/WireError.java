package io.reactiveregistry.server.errors;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.message.ErrorBody;

/** A refusal as the contract words it, and the HTTP status the read API answers it with. */
public record WireError(ErrorCode code, String message, int httpStatus) {
  public ErrorBody body() {
    return new ErrorBody(code.name(), message);
  }
}
