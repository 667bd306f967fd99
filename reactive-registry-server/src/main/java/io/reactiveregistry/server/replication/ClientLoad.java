package io.reactiveregistry.server.replication;

/**
 * What a member reports of its clients with each digest, for rebalancing to compare: the
 * connections of clients that honour moves ({@code connections}; -1 while the member stops), and
 * its Nacos clients' connections with the Nacos port those clients reach it on ({@code
 * nacosConnections} and {@code nacosPort}; both -1 when no Nacos client can be sent to it).
 */
public record ClientLoad(int connections, int nacosConnections, int nacosPort) {
  /** A member holding no client, with no Nacos door. */
  public static final ClientLoad NONE = new ClientLoad(0, -1, -1);

  /** The same with its Nacos clients counted. */
  public ClientLoad withNacos(int nacosConnections, int nacosPort) {
    return new ClientLoad(connections, nacosConnections, nacosPort);
  }
}
