package io.reactiveregistry.client;

import io.reactiveregistry.protocol.ErrorCode;

/**
 * The registry refused a request, or the client refused to send it because it breaks a rule of
 * the contract. {@link #code()} is the contract's error code; the message is the server's wording.
 */
public class RegistryErrorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  public RegistryErrorException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }

  @Override
  public String toString() {
    return "RegistryErrorException[" + code + "]: " + getMessage();
  }
}
