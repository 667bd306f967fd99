package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.message.ConnectionList;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The connections open now, for {@code admin.connections}: what an operator asks when an instance
 * appears that nobody expected, or a client holds more subscriptions than it should. Each door
 * lists its connections here ({@link RequestLayer#listed}) and the layer unlists them on release.
 */
public final class Connections {
  /**
   * What a door tells of one of its connections: who says it is ({@code client}), from where, over
   * which transport, since when, and, read when listed, its principal and open subscriptions.
   */
  public record Listing(String client, String remote, String transport, long openedAt,
      Supplier<@Nullable Principal> principal, IntSupplier subscriptions) {}

  private record Open(Session session, Listing listing) {}

  /** By connection id: ids grow, so the listing is oldest first. */
  private final ConcurrentSkipListMap<Long, Open> byId = new ConcurrentSkipListMap<>();

  void opened(Session session, Listing listing) {
    byId.put(session.id(), new Open(session, listing));
  }

  void closed(Session session) {
    byId.remove(session.id());
  }

  /** Every open connection with what it owns now (one read of the registry for all of them). */
  ConnectionList list(RegistryRuntime runtime) {
    List<Open> open = new ArrayList<>(byId.values());
    int[] owned = runtime.read(registry -> {
      int[] counts = new int[open.size()];
      for (int i = 0; i < counts.length; i++) {
        counts[i] = registry.ownedBy(open.get(i).session().owner);
      }
      return counts;
    });
    List<ConnectionList.Connection> connections = new ArrayList<>(open.size());
    for (int i = 0; i < owned.length; i++) {
      Open one = open.get(i);
      Listing listing = one.listing();
      Principal principal = listing.principal().get();
      connections.add(new ConnectionList.Connection(one.session().id(), listing.client(), listing.remote(),
          listing.transport(), principal == null ? null : principal.name(), listing.openedAt(), owned[i],
          listing.subscriptions().getAsInt()));
    }
    return new ConnectionList(connections);
  }
}
