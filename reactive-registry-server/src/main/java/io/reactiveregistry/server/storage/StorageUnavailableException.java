package io.reactiveregistry.server.storage;

/**
 * Storage cannot take a change now. {@link Reason#BUSY}: too many changes are waiting to be
 * written, a retry later may succeed; {@link Reason#NO_QUORUM}: the cluster could not commit it (no
 * majority of members reachable), a retry once they are may succeed; {@link Reason#FAILED}: storage
 * has failed and the server needs attention.
 */
public final class StorageUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public enum Reason {
    BUSY,
    NO_QUORUM,
    FAILED
  }

  private final Reason reason;

  public StorageUnavailableException(String message, Reason reason, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public StorageUnavailableException(String message, boolean busy, Throwable cause) {
    this(message, busy ? Reason.BUSY : Reason.FAILED, cause);
  }

  public Reason reason() {
    return reason;
  }

  public boolean busy() {
    return reason == Reason.BUSY;
  }
}
