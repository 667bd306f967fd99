package io.reactiveregistry.server.replication;

/** Told when a peer's replication stream is up: storage keeps its own links to the peer ready. */
@FunctionalInterface
public interface PeerRuns {
  /**
   * The peer's stream came up; {@code restarted} when it comes from a new run of the peer (its
   * earlier connections are closed).
   */
  void connected(String peer, boolean restarted);
}
