package io.reactiveregistry.server.transport;

import io.reactiveregistry.protocol.rules.RuleViolation;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.MalformedBodyException;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.core.Failure;
import io.reactiveregistry.server.core.RegistryException;
import io.rsocket.exceptions.ApplicationErrorException;
import io.reactiveregistry.server.storage.StorageUnavailableException;
import java.util.concurrent.atomic.AtomicLong;
import io.reactiveregistry.server.process.FatalErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping from failures to wire errors. Messages of refusals reach the user as written;
 * an unexpected exception is logged with a reference and the wire only sees that reference.
 */
final class ErrorMapping {
  private static final Logger log = LoggerFactory.getLogger(ErrorMapping.class);
  private static final AtomicLong incidents = new AtomicLong();

  private ErrorMapping() {}

  static ErrorCode code(Failure failure) {
    return switch (failure) {
      case INVALID_PARAM -> ErrorCode.INVALID_PARAM;
      case SERVICE_TYPE_MISMATCH -> ErrorCode.SERVICE_TYPE_MISMATCH;
      case NOT_FOUND -> ErrorCode.NOT_FOUND;
      case ALREADY_EXISTS -> ErrorCode.ALREADY_EXISTS;
      case SERVICE_NOT_EMPTY -> ErrorCode.SERVICE_NOT_EMPTY;
      case FORBIDDEN -> ErrorCode.FORBIDDEN;
      case LIMIT_EXCEEDED -> ErrorCode.LIMIT_EXCEEDED;
    };
  }

  static ErrorBody body(Throwable error) {
    if (error instanceof RegistryException refused) {
      return new ErrorBody(code(refused.failure()).name(), refused.getMessage());
    }
    if (error instanceof RequestException refused) {
      return new ErrorBody(refused.code().name(), refused.getMessage());
    }
    if (error instanceof StorageUnavailableException storage) {
      return new ErrorBody((storage.busy() ? ErrorCode.LIMIT_EXCEEDED : ErrorCode.INTERNAL).name(),
          storage.getMessage());
    }
    if (error instanceof RuleViolation violation) {
      return new ErrorBody(ErrorCode.INVALID_PARAM.name(), violation.getMessage());
    }
    if (error instanceof MalformedBodyException malformed) {
      return new ErrorBody(ErrorCode.INVALID_PARAM.name(), malformed.getMessage());
    }
    FatalErrors.check(error);
    long ref = incidents.incrementAndGet();
    log.error("internal error, ref {}", ref, error);
    return new ErrorBody(ErrorCode.INTERNAL.name(), "internal error (ref " + ref + "); see the server log");
  }

  static ApplicationErrorException toWire(Throwable error) {
    return toWire(body(error));
  }

  static ApplicationErrorException toWire(ErrorBody body) {
    return new ApplicationErrorException(JsonCodec.json().encodeToString(body));
  }
}
