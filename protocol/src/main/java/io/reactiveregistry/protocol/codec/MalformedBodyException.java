package io.reactiveregistry.protocol.codec;

/** A request body that is not valid JSON for its route; the message says where and why. */
public final class MalformedBodyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MalformedBodyException(String message) {
    super(message, null, false, false);
  }
}
