package io.reactiveregistry.client;

import org.jspecify.annotations.Nullable;

/** No registry server could be reached in time. */
public final class RegistryUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RegistryUnavailableException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
