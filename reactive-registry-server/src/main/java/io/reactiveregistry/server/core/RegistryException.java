package io.reactiveregistry.server.core;

/**
 * A refused command. The message is written for the user: it names the field and the rule. A
 * command that throws has changed nothing.
 */
public final class RegistryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Failure failure;

  public RegistryException(Failure failure, String message) {
    super(message, null, false, false);
    this.failure = failure;
  }

  public Failure failure() {
    return failure;
  }

  static RegistryException invalid(String message) {
    return new RegistryException(Failure.INVALID_PARAM, message);
  }
}
