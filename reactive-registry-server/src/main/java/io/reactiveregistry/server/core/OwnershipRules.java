package io.reactiveregistry.server.core;

import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;

/**
 * The pure decisions of ownership: what a registration is to the instance it names, and what a
 * heartbeat does. No state: the registry asks, then acts.
 */
final class OwnershipRules {
  private OwnershipRules() {}

  /** What a registration is to the instance it names. */
  enum Registration {
    /** No such instance: it is created (an ephemeral one owned by the caller). */
    NEW,
    /** The caller's own ephemeral instance, or a persistent one (nobody owns those): updated. */
    UPDATE,
    /** Another connection's ephemeral instance: the caller takes it over (a client that reconnected). */
    TAKE_OVER;

    /** Whether the caller owns one more instance afterwards (what its limit counts). */
    boolean addsToCaller(boolean ephemeral) {
      return ephemeral && this != UPDATE;
    }
  }

  /**
   * @param existingOwner the instance's owner; null for a persistent instance, or when there is none
   * @param exists whether the instance exists
   */
  static Registration registration(boolean ephemeral, boolean exists, Owner existingOwner, Owner caller) {
    if (!exists) {
      return Registration.NEW;
    }
    return ephemeral && existingOwner != caller ? Registration.TAKE_OVER : Registration.UPDATE;
  }

  /**
   * A heartbeat naming one instance refreshes it if the caller owns it; re-creates it if the server
   * no longer has it, unless the caller deregistered it (a heartbeat in flight must not undo that);
   * and otherwise does nothing, saying whether the instance is another member's copy (the caller
   * should register it here) or another connection's. Persistent instances are not kept alive by
   * heartbeats.
   */
  static HeartbeatOutcome heartbeat(boolean servicePersistent, boolean exists, boolean ownedByCaller,
      boolean ownedByPeer, boolean deregisteredByCaller) {
    if (servicePersistent) {
      return HeartbeatOutcome.IGNORED_PERSISTENT;
    }
    if (exists) {
      return ownedByCaller ? HeartbeatOutcome.REFRESHED
          : ownedByPeer ? HeartbeatOutcome.IGNORED_OTHER_NODE : HeartbeatOutcome.IGNORED_NOT_OWNER;
    }
    return deregisteredByCaller ? HeartbeatOutcome.IGNORED_DEREGISTERED : HeartbeatOutcome.RECREATED;
  }
}
