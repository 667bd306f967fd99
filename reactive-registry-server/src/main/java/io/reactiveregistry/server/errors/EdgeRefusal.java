package io.reactiveregistry.server.errors;

import io.reactiveregistry.protocol.ErrorCode;

/**
 * A request refused at an edge before it reaches the core — no route, a body too large, a limit of
 * the connection, an HTTP parameter that is not a number — with the contract code to answer it with.
 * Edges throw this, never the core's {@code RegistryException}.
 */
public final class EdgeRefusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  public EdgeRefusal(ErrorCode code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }
}
