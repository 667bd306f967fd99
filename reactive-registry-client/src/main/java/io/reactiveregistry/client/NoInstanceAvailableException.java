package io.reactiveregistry.client;

/** {@code choose} found no healthy, enabled instance of weight above 0 in the service's view. */
public final class NoInstanceAvailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NoInstanceAvailableException(String message) {
    super(message);
  }
}
