package io.reactiveregistry.server.errors;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.codec.MalformedBodyException;
import io.reactiveregistry.protocol.rules.RuleViolation;
import io.reactiveregistry.server.core.Failure;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.core.RegistryException;
import io.reactiveregistry.server.process.FatalErrors;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every failure's answer. A refusal's message reaches the client as written; anything unexpected is
 * logged with a reference number and the client reads only that reference ({@code INTERNAL}).
 */
public final class ErrorTable {
  private static final Logger log = LoggerFactory.getLogger(ErrorTable.class);
  private static final AtomicLong incidents = new AtomicLong();

  private ErrorTable() {}

  public static WireError of(Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (cause instanceof RegistryException refused) {
      return wire(code(refused.failure()), refused.getMessage());
    }
    if (cause instanceof EdgeRefusal refused) {
      return wire(refused.code(), refused.getMessage());
    }
    if (cause instanceof RuleViolation || cause instanceof MalformedBodyException) {
      return wire(ErrorCode.INVALID_PARAM, cause.getMessage());
    }
    FatalErrors.check(cause);
    long ref = incidents.incrementAndGet();
    log.error("internal error, ref {}", ref, cause);
    return wire(ErrorCode.INTERNAL, "internal error (ref " + ref + "); see the server log");
  }

  /** A command the core refused. */
  public static WireError of(Outcome.Refused refused) {
    return wire(code(refused.failure()), refused.message());
  }

  public static ErrorCode code(Failure failure) {
    return switch (failure) {
      case INVALID_PARAM -> ErrorCode.INVALID_PARAM;
      case SERVICE_TYPE_MISMATCH -> ErrorCode.SERVICE_TYPE_MISMATCH;
      case NOT_FOUND -> ErrorCode.NOT_FOUND;
      case ALREADY_EXISTS -> ErrorCode.ALREADY_EXISTS;
      case SERVICE_NOT_EMPTY -> ErrorCode.SERVICE_NOT_EMPTY;
      case FORBIDDEN -> ErrorCode.FORBIDDEN;
      case LIMIT_EXCEEDED, STORAGE_BEHIND -> ErrorCode.LIMIT_EXCEEDED;
      case UNAVAILABLE -> ErrorCode.UNAVAILABLE;
      case STORAGE_FAILED -> ErrorCode.INTERNAL;
    };
  }

  public static int httpStatus(ErrorCode code) {
    return switch (code) {
      case INVALID_PARAM -> 400;
      case UNAUTHENTICATED -> 401;
      case FORBIDDEN -> 403;
      case NOT_FOUND, UNKNOWN_ROUTE -> 404;
      case SERVICE_TYPE_MISMATCH, ALREADY_EXISTS, SERVICE_NOT_EMPTY -> 409;
      case LIMIT_EXCEEDED -> 429;
      case INTERNAL -> 500;
      case UNAVAILABLE -> 503;
    };
  }

  private static WireError wire(ErrorCode code, String message) {
    return new WireError(code, message, httpStatus(code));
  }
}
