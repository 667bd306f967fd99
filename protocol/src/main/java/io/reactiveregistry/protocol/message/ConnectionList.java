package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** The answer to {@code admin.connections}: the RSocket connections open to this server, oldest first. */
public record ConnectionList(List<ConnectionList.Connection> connections) {

  /**
   * One connection: its id (as in the audit trail's {@code connection}), the client's name from its
   * SETUP, where it comes from, the transport ({@code tcp} or {@code websocket}), who its SETUP
   * token speaks for (null without one), when it opened (epoch milliseconds), how many ephemeral
   * instances it owns and how many subscriptions it holds open.
   */
  public record Connection(long id, String client, String remote, String transport, @Nullable String principal,
      long openedAt, int instances, int subscriptions) {}
}
