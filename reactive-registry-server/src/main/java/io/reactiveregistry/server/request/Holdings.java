package io.reactiveregistry.server.request;

import io.reactiveregistry.server.core.InstanceAddress;
import java.util.List;

/**
 * The ephemeral instances a session owned at one moment, kept by a door to ask later who holds
 * them ({@link RequestLayer#heldHereBy}): a door knows no instance but through the request layer.
 */
public final class Holdings {
  final List<InstanceAddress> addresses;

  Holdings(List<InstanceAddress> addresses) {
    this.addresses = List.copyOf(addresses);
  }

  public boolean isEmpty() {
    return addresses.isEmpty();
  }
}
