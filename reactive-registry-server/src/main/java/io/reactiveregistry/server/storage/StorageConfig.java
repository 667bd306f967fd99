package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.cluster.ClusterConfig;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where and how durable state is kept.
 *
 * @param dataDir the directory of the Raft log and snapshots; null keeps everything in memory
 *     (embedding and tests only: nothing survives a restart)
 * @param raftPort the Raft RPC port, bound on loopback while the group has one node; 0 picks a free port
 * @param snapshotEvery log entries between snapshots; the log before a snapshot is purged
 * @param maxNotDurable commands whose changes may wait to be written; beyond it durable writes are
 *     refused with {@code LIMIT_EXCEEDED} until storage catches up
 * @param cluster the members whose Raft group holds the durable state; a single node by default
 *     (the member entry of this node then gives the Raft port)
 * @param restoreFrom a backup file to start a new data directory from ({@code --restore-from}); null for none
 * @param join the RSocket address ({@code host:port}) of a member of the running cluster this new
 *     member asks to add it ({@code --join}); null for a member of the cluster it was started with
 * @param leaderWarmUp whether a cluster member runs Raft's leader code once at start, in a throwaway
 *     group, so that its first leadership (a planned hand-over to it) does not run it cold
 *     ({@code --raft-leader-warm-up}); a single server has nothing to hand over and never does
 */
public record StorageConfig(Path dataDir, int raftPort, long snapshotEvery, int maxNotDurable, ClusterConfig cluster,
    @Nullable Path restoreFrom, @Nullable String join, boolean leaderWarmUp) {
  public StorageConfig(Path dataDir, int raftPort, long snapshotEvery, int maxNotDurable, ClusterConfig cluster,
      @Nullable Path restoreFrom) {
    this(dataDir, raftPort, snapshotEvery, maxNotDurable, cluster, restoreFrom, null, true);
  }

  public StorageConfig(Path dataDir, int raftPort, long snapshotEvery, int maxNotDurable, ClusterConfig cluster) {
    this(dataDir, raftPort, snapshotEvery, maxNotDurable, cluster, null);
  }

  /** A single server's storage. */
  public StorageConfig(Path dataDir, int raftPort, long snapshotEvery, int maxNotDurable) {
    this(dataDir, raftPort, snapshotEvery, maxNotDurable, ClusterConfig.single());
  }

  public StorageConfig {
    if (raftPort < 0 || raftPort > 65_535) {
      throw new IllegalArgumentException("the Raft port is from 0 (any free one) to 65535: " + raftPort);
    }
    if (snapshotEvery < 1 || maxNotDurable < 1) {
      throw new IllegalArgumentException("entries between snapshots and uncommitted writes must be at least 1: "
          + snapshotEvery + ", " + maxNotDurable);
    }
  }

  public static final StorageConfig DEFAULTS = new StorageConfig(Path.of("data"), 7090, 10_000, 10_000);

  public static StorageConfig inMemory() {
    return new StorageConfig(null, 0, DEFAULTS.snapshotEvery, DEFAULTS.maxNotDurable);
  }

  /** On disk in {@code dataDir}, Raft on a free port: what tests of durability want. */
  public static StorageConfig onDisk(Path dataDir) {
    return new StorageConfig(dataDir, 0, DEFAULTS.snapshotEvery, DEFAULTS.maxNotDurable);
  }

  /** This storage as one member of {@code value}'s group, on the Raft port its member entry gives. */
  public StorageConfig withCluster(ClusterConfig value) {
    if (!value.clustered()) {
      return new StorageConfig(dataDir, raftPort, snapshotEvery, maxNotDurable, value, restoreFrom, join,
          leaderWarmUp);
    }
    if (dataDir == null) {
      throw new IllegalArgumentException("a cluster member keeps its durable state on disk: --in-memory cannot be "
          + "used with --members");
    }
    return new StorageConfig(dataDir, value.self().raftPort(), snapshotEvery, maxNotDurable, value, restoreFrom,
        join, leaderWarmUp);
  }

  /** This storage started, when its data directory is new, from the backup in {@code file}. */
  public StorageConfig withRestoreFrom(@Nullable Path file) {
    if (file != null && dataDir == null) {
      throw new IllegalArgumentException("--restore-from writes the backup into --data-dir: it cannot be used with "
          + "--in-memory");
    }
    return new StorageConfig(dataDir, raftPort, snapshotEvery, maxNotDurable, cluster, file, join, leaderWarmUp);
  }

  /**
   * This member, when its data directory is new, started outside the group: it asks the member at
   * {@code address} to add it, and receives the durable state from the leader.
   */
  public StorageConfig withJoin(@Nullable String address) {
    if (address != null && !cluster.clustered()) {
      throw new IllegalArgumentException("--join needs --node-id and --members (this node's own entry, "
          + "id=host:port/raftPort, at least)");
    }
    return new StorageConfig(dataDir, raftPort, snapshotEvery, maxNotDurable, cluster, restoreFrom, address,
        leaderWarmUp);
  }

  /** This storage with its leader warm-up on or off ({@code --raft-leader-warm-up}). */
  public StorageConfig withLeaderWarmUp(boolean value) {
    return new StorageConfig(dataDir, raftPort, snapshotEvery, maxNotDurable, cluster, restoreFrom, join, value);
  }

  public boolean durable() {
    return dataDir != null;
  }
}
