package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.cluster.ClusterConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cluster.properties} in a cluster member's data directory: which member it belongs to, and
 * the membership its group last committed (rewritten at each change made online). A directory is
 * one member's for good: started as another member, or as a single node (or a single node's
 * directory started as a member), the server refuses to start and says why, rather than joining
 * the wrong group with the wrong log. Started again with another {@code --members}, a member
 * keeps the membership it last knew: {@code --members} describes a member's first start only.
 */
final class MembershipFile {
  static final String NAME = "cluster.properties";
  private static final Logger log = LoggerFactory.getLogger(MembershipFile.class);

  private MembershipFile() {}

  /**
   * Checks the directory against how this server was started, records a new member's identity,
   * and answers the membership to start with: the one last committed when there is one.
   */
  static ClusterConfig check(Path dataDir, ClusterConfig cluster, Path groupDirectory) throws IOException {
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
      if (!cluster.nodeId().equals(nodeId)) {
        throw new IllegalStateException("data directory " + dataDir.toAbsolutePath() + " belongs to member '"
            + nodeId + "' of the cluster " + members + ", not to member '" + cluster.nodeId() + "' of " + cluster
            + "; start this node with the same --node-id as before, or with an empty --data-dir");
      }
      ClusterConfig known = ClusterConfig.parse(nodeId, members.isEmpty() ? cluster.toString() : members);
      if (!known.toString().equals(cluster.toString())) {
        log.info("member {} starts with the membership its group last committed, {} (--members {} describes a "
            + "member's first start only)", nodeId, known, cluster);
      }
      return known;
    }
    if (!cluster.clustered()) {
      return cluster;
    }
    if (Files.exists(groupDirectory)) {
      throw new IllegalStateException("data directory " + dataDir.toAbsolutePath() + " holds a single server's "
          + "durable state; a cluster member starts from its own empty --data-dir (the single server's data "
          + "stays where it is)");
    }
    write(dataDir, cluster);
    return cluster;
  }

  /** Records the membership the group committed, so that a restart starts with it. */
  static void write(Path dataDir, ClusterConfig cluster) {
    Properties identity = new Properties();
    identity.setProperty("node-id", cluster.nodeId());
    identity.setProperty("members", cluster.toString());
    try {
      Files.createDirectories(dataDir);
      Path temporary = dataDir.resolve(NAME + ".writing");
      try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
        identity.store(writer, "the data directory belongs to this member; members: as its group last committed");
      }
      Files.move(temporary, dataDir.resolve(NAME), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("the membership file in " + dataDir.toAbsolutePath() + " cannot be written", e);
    }
  }
}
