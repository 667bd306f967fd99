package io.reactiveregistry.protocol.message;

import java.util.List;

/**
 * The server asks a client to move its connection to another member ({@code connection.move},
 * fire-and-forget from server to client): the member is stopping, or holds more than its share of
 * connections. The client connects to one of {@code members} (RSocket TCP addresses,
 * {@code host:port}; any one, chosen at random so that a member's clients spread; when empty, any
 * other member it knows), makes its registrations and subscriptions again there, and only then
 * closes this connection, so that what it owns is taken over rather than removed.
 *
 * @param reason why, for the client's log
 * @param members where to go
 */
public record MoveRequest(String reason, List<String> members) {
  public MoveRequest {
    members = List.copyOf(members);
  }
}
