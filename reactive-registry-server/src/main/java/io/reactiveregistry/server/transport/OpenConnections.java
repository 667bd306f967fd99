package io.reactiveregistry.server.transport;

import io.netty.channel.Channel;
import io.reactiveregistry.protocol.message.ConnectionList;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.security.Principal;
import io.rsocket.transport.netty.RSocketLengthCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jspecify.annotations.Nullable;

/**
 * The RSocket connections open now, for {@code admin.connections}: what an operator asks when an
 * instance appears that nobody expected, or a client holds more subscriptions than it should.
 */
final class OpenConnections {
  private record Open(ConnectionSession session, String client, String remote, String transport, long openedAt) {}

  /** By connection id: ids grow, so the listing is oldest first. */
  private final ConcurrentSkipListMap<Long, Open> byId = new ConcurrentSkipListMap<>();

  void opened(ConnectionSession session, String client, String remote, @Nullable Channel channel, long openedAt) {
    byId.put(session.owner().id(), new Open(session, client, remote, transport(channel), openedAt));
  }

  void closed(Owner owner) {
    byId.remove(owner.id());
  }

  /** Every open connection with what it owns now (one read of the registry for all of them). */
  ConnectionList list(RegistryRuntime runtime) {
    List<Open> open = new ArrayList<>(byId.values());
    int[] owned = runtime.read(registry -> {
      int[] counts = new int[open.size()];
      for (int i = 0; i < counts.length; i++) {
        counts[i] = registry.ownedBy(open.get(i).session().owner());
      }
      return counts;
    });
    List<ConnectionList.Connection> connections = new ArrayList<>(open.size());
    for (int i = 0; i < owned.length; i++) {
      Open one = open.get(i);
      Principal principal = one.session().principal();
      connections.add(new ConnectionList.Connection(one.session().owner().id(), one.client(), one.remote(),
          one.transport(), principal == null ? null : principal.name(), one.openedAt(), owned[i],
          one.session().openSubscriptions()));
    }
    return new ConnectionList(connections);
  }

  /** TCP connections carry RSocket's length prefix; WebSocket ones frame it themselves. */
  private static String transport(@Nullable Channel channel) {
    if (channel == null) {
      return "unknown";
    }
    return channel.pipeline().get(RSocketLengthCodec.class) != null ? "tcp" : "websocket";
  }
}
