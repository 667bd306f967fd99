package io.reactiveregistry.server.transport;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.errors.ErrorTable;
import io.rsocket.exceptions.ApplicationErrorException;

/** A failure as RSocket carries it: the error table's body, JSON, in an {@code APPLICATION_ERROR}. */
final class ErrorMapping {
  private ErrorMapping() {}

  static ErrorBody body(Throwable error) {
    return ErrorTable.of(error).body();
  }

  static ApplicationErrorException toWire(Throwable error) {
    return toWire(body(error));
  }

  static ApplicationErrorException toWire(ErrorBody body) {
    return new ApplicationErrorException(JsonCodec.json().encodeToString(body));
  }
}
