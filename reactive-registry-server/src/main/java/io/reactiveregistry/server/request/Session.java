package io.reactiveregistry.server.request;

import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.wire.RepeatedHeartbeats;

/**
 * What a door's connection is to the request layer: the owner of the ephemeral instances it
 * registers. Opened by {@link RequestLayer#open}, released once by {@link RequestLayer#release}
 * when the connection closes; HTTP callers share {@link RequestLayer#http()}, which is never
 * released (its instances live by their heartbeats).
 */
public final class Session {
  final Owner owner;
  /** The heartbeat bodies this connection sends again and again, decoded once each. */
  final RepeatedHeartbeats heartbeats = new RepeatedHeartbeats();

  Session(Owner owner) {
    this.owner = owner;
  }

  /** The connection's number on this node, as {@code admin.connections} lists it. */
  public long id() {
    return owner.id();
  }

  /** {@code client@address}, for people: logs and traces. */
  public String label() {
    return owner.label();
  }

  @Override
  public String toString() {
    return owner.toString();
  }
}
