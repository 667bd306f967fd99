package io.reactiveregistry.server.core;

import org.jspecify.annotations.Nullable;

/**
 * Who owns ephemeral instances: a connection to this node, or another node of the cluster (the
 * copies of what that node's connections registered, {@link #peer}). Identity is by object: two
 * connections from the same client are two owners. The label ({@code client@address}, or
 * {@code node n2}) is for people: logs, traces.
 */
public final class Owner {
  private final long id;
  private final String label;
  /** The node whose copies this owner holds; null for a connection to this node. */
  private final @Nullable String node;
  /** Whether it stands for many callers that are not connections ({@link #shared}). */
  private final boolean shared;

  public Owner(long id, String label) {
    this(id, label, null, false);
  }

  private Owner(long id, String label, @Nullable String node, boolean shared) {
    this.id = id;
    this.label = label;
    this.node = node;
    this.shared = shared;
  }

  /**
   * The owner of what callers without a connection register (HTTP): one for all of them, never
   * released, so its instances live by their heartbeats alone. A batch from one of them registers
   * and updates, and removes nothing: the others' instances are not the caller's to replace.
   */
  public static Owner shared(long id, String label) {
    return new Owner(id, label, null, true);
  }

  public boolean isShared() {
    return shared;
  }

  /** The owner of the copies another node replicates here: what its own connections registered. */
  static Owner peer(String node) {
    return new Owner(0, "node " + node, node, false);
  }

  public long id() {
    return id;
  }

  public String label() {
    return label;
  }

  /** The other node this owner stands for; null for a connection to this node. */
  public @Nullable String node() {
    return node;
  }

  /** Whether it stands for another node's copies rather than a connection to this node. */
  public boolean isPeer() {
    return node != null;
  }

  @Override
  public String toString() {
    return node != null ? label : label + "#" + id;
  }
}
