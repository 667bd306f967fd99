package io.reactiveregistry.server.core;

/**
 * The connection that owns ephemeral instances. Identity is by object: two connections from the
 * same client are two owners. The label ({@code client@address}) is for people: logs, traces.
 */
public final class Owner {
  private final long id;
  private final String label;

  public Owner(long id, String label) {
    this.id = id;
    this.label = label;
  }

  public long id() {
    return id;
  }

  public String label() {
    return label;
  }

  @Override
  public String toString() {
    return label + "#" + id;
  }
}
