package io.reactiveregistry.server.storage;

/**
 * Storage cannot take a change now. {@code busy}: too many changes are waiting to be written, a
 * retry later may succeed; otherwise storage has failed and the server needs attention.
 */
public final class StorageUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean busy;

  public StorageUnavailableException(String message, boolean busy, Throwable cause) {
    super(message, cause);
    this.busy = busy;
  }

  public boolean busy() {
    return busy;
  }
}
