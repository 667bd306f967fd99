package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.cluster.ClusterConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * {@code cluster.properties} in a cluster member's data directory: which member wrote it, of which
 * member list. A directory is one member's for good: started again as another member, with another
 * member list, or as a single node (or a single node's directory started as a member), the server
 * refuses to start and says why, rather than joining the wrong group with the wrong log.
 */
final class MembershipFile {
  static final String NAME = "cluster.properties";

  private MembershipFile() {}

  /** Checks the directory against how this server was started, and records a new member's identity. */
  static void check(Path dataDir, ClusterConfig cluster, Path groupDirectory) throws IOException {
    Path file = dataDir.resolve(NAME);
    if (Files.exists(file)) {
      Properties recorded = new Properties();
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        recorded.load(reader);
      }
      String nodeId = recorded.getProperty("node-id");
      String members = recorded.getProperty("members");
      if (!cluster.clustered()) {
        throw new IllegalStateException("data directory " + dataDir.toAbsolutePath() + " belongs to member '"
            + nodeId + "' of the cluster " + members + "; start it with --node-id " + nodeId + " --members "
            + members + ", or give a single server another --data-dir");
      }
      if (!cluster.nodeId().equals(nodeId) || !cluster.toString().equals(members)) {
        throw new IllegalStateException("data directory " + dataDir.toAbsolutePath() + " belongs to member '"
            + nodeId + "' of the cluster " + members + ", not to member '" + cluster.nodeId() + "' of " + cluster
            + "; start this node with the same --node-id and --members as before, or with an empty --data-dir");
      }
      return;
    }
    if (!cluster.clustered()) {
      return;
    }
    if (Files.exists(groupDirectory)) {
      throw new IllegalStateException("data directory " + dataDir.toAbsolutePath() + " holds a single server's "
          + "durable state; a cluster member starts from its own empty --data-dir (the single server's data "
          + "stays where it is)");
    }
    Files.createDirectories(dataDir);
    Properties identity = new Properties();
    identity.setProperty("node-id", cluster.nodeId());
    identity.setProperty("members", cluster.toString());
    Path temporary = dataDir.resolve(NAME + ".writing");
    try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
      identity.store(writer, "written at this member's first start; the data directory belongs to it");
    }
    Files.move(temporary, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
