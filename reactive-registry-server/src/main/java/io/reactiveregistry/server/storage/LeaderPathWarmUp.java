package io.reactiveregistry.server.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Ratis's leader code once in this JVM before the member may be asked to lead: a throwaway
 * group of three servers on loopback ports, with a state machine that keeps nothing, elects a
 * leader, takes writes, and hands leadership from server to server; then it is closed and its
 * directory deleted.
 *
 * <p>Why: a member that has never led runs its first leadership (the election it is told to start
 * in a planned handover, becoming leader, its log appenders, its first commit) in the interpreter,
 * loading some 200 classes on the way; on two cores a handover to such a member took 150–420 ms
 * where one to a member that had led before took 55–250 ms (load-tests/RESULTS.md, "A member's
 * first leadership, warmed up"). Compiled code belongs to the JVM, not to a group, so the real
 * group's first leadership here runs what the throwaway group compiled. It costs the member one
 * to three seconds of CPU in a background thread as it starts, and nothing afterwards. Best
 * effort: a warm-up that fails is logged and forgotten. Its servers' peer ids start with
 * {@link #PEER_PREFIX}, which {@link WarmUpLogFilter} keeps out of the server's log.
 */
final class LeaderPathWarmUp {
  private static final Logger log = LoggerFactory.getLogger(LeaderPathWarmUp.class);
  static final String PEER_PREFIX = "leader-warm-up-";
  /** The directory under the data directory; one left by a member killed while warming up is deleted at start. */
  static final String DIRECTORY = "leader-warm-up";
  private static final int SERVERS = 3;
  /**
   * A second group is tried when the first fails: its ports are found free and then bound by
   * Ratis, and another process may take one in between.
   */
  private static final int ATTEMPTS = 2;
  /** Writes to each leader in turn: the leader's per-entry code gets compiled (C1 compiles after about 200 calls). */
  static final int WRITES_PER_LEADER = 100;
  private static final ByteString ENTRY = ByteString.copyFrom("x".repeat(200), StandardCharsets.US_ASCII);

  private final Path directory;
  private final SupportedRpcType rpc;
  private final List<RaftServer> servers = new CopyOnWriteArrayList<>();
  private final AtomicInteger leaderships = new AtomicInteger();
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile boolean stopped;

  private LeaderPathWarmUp(Path directory, SupportedRpcType rpc) {
    this.directory = directory;
    this.rpc = rpc;
  }

  /** Starts the warm-up in a background thread, in {@code dataDir}'s warm-up directory, over {@code rpc}. */
  static LeaderPathWarmUp start(Path dataDir, SupportedRpcType rpc) {
    LeaderPathWarmUp warmUp = new LeaderPathWarmUp(dataDir.resolve(DIRECTORY), rpc);
    delete(warmUp.directory); // a member killed while warming up left it
    Thread thread = new Thread(warmUp::run, "raft-leader-warm-up");
    thread.setDaemon(true);
    thread.start();
    return warmUp;
  }

  /** Stops a warm-up still running (its servers closed) and waits for it to be cleaned up. */
  void stop() {
    stopped = true;
    close(servers);
    await(Duration.ofSeconds(10));
  }

  /** Waits until the warm-up is over; how many leaderships its group went through (0: it failed). */
  int await(Duration timeout) {
    try {
      done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return leaderships.get();
  }

  private void run() {
    long start = System.nanoTime();
    try {
      try {
        decodeRefusals();
      } catch (RuntimeException e) {
        log.debug("the refusals' replies not warmed up", e);
      }
      for (int attempt = 1; attempt <= ATTEMPTS && !stopped; attempt++) {
        try {
          lead();
          if (!stopped) {
            log.info("Raft's leader code warmed up in {} ms ({} leaderships of a throwaway group)",
                (System.nanoTime() - start) / 1_000_000, leaderships.get());
          }
          return;
        } catch (IOException | RuntimeException e) {
          leaderships.set(0);
          if (!stopped && attempt == ATTEMPTS) {
            log.info("Raft's leader code not warmed up ({}): this member's first leadership runs it cold",
                e.toString());
          }
        } finally {
          close(servers);
          servers.clear();
          delete(directory);
        }
      }
    } finally {
      done.countDown();
    }
  }

  /**
   * Encodes and decodes once a reply with each refusal a leader handing over sends (a write that
   * arrives while it steps down, once it has, and at the new leader before its first commit);
   * the refused exception types, as a forwarding member decodes them.
   *
   * <p>Why: Ratis carries a reply's exception as a serialized Java object, and a JVM's first
   * serialization of one (the object stream's set-up, each class's descriptor) took 60–70 ms on
   * an idle core here, on the old leader, while the writes it refused waited for the refusal: in
   * a planned stop on two busy cores the other members' writes got their refusal 150–170 ms after
   * sending them (load-tests/RESULTS.md, "Losing the leader: the pause read apart from the
   * writers' cold start"). The throwaway group below never refuses a write while stepping down.
   */
  static List<Class<? extends Throwable>> decodeRefusals() {
    RaftGroupMemberId member = RaftGroupMemberId.valueOf(RaftPeerId.valueOf(PEER_PREFIX + "0"),
        RaftGroupId.randomId());
    List<RaftException> refusals = List.of(new LeaderSteppingDownException(member + " is stepping down"),
        new NotLeaderException(member, null, List.of()), new LeaderNotReadyException(member));
    List<Class<? extends Throwable>> decoded = new ArrayList<>();
    for (RaftException refusal : refusals) {
      RaftClientReply reply = RaftClientReply.newBuilder().setClientId(ClientId.randomId()).setServerId(member)
          .setCallId(0).setException(refusal).build();
      RaftClientReply received = ClientProtoUtils.toRaftClientReply(ClientProtoUtils.toRaftClientReplyProto(reply));
      decoded.add(received.getException() == null ? Throwable.class : received.getException().getClass());
    }
    return decoded;
  }

  /** One throwaway group: started, led by each of its servers in turn, with writes each time. */
  private void lead() throws IOException {
    RaftGroup group = group();
    for (RaftPeer peer : group.getPeers()) {
      RaftServer server = RaftServer.newBuilder()
          .setServerId(peer.getId())
          .setGroup(group)
          .setProperties(properties(directory.resolve(peer.getId().toString()), rpc, peer))
          .setStateMachine(new BaseStateMachine())
          .build();
      servers.add(server);
      if (stopped) {
        return;
      }
      server.start();
    }
    try (RaftClient client = client(group, rpc)) {
      writes(client);
      leaderships.incrementAndGet();
      RaftPeerId first = client.getLeaderId();
      for (RaftPeer peer : group.getPeers()) {
        if (stopped || peer.getId().equals(first)) {
          continue; // each of the others leads once
        }
        RaftClientReply reply = client.admin().transferLeadership(peer.getId(), 5_000);
        if (!reply.isSuccess()) {
          throw new IOException("the hand-over to " + peer.getId() + " failed: " + reply.getException());
        }
        writes(client);
        leaderships.incrementAndGet();
      }
    }
  }

  /**
   * Closes the servers at once: one by one, the last ones would spend their election timeouts
   * trying to reach the closed ones, and log each try.
   */
  private static void close(List<RaftServer> servers) {
    List<Thread> closing = new ArrayList<>();
    for (RaftServer server : servers) {
      Thread thread = new Thread(() -> {
        try {
          server.close();
        } catch (IOException | RuntimeException e) {
          log.debug("closing a warm-up server", e);
        }
      }, "raft-warm-up-close");
      thread.start();
      closing.add(thread);
    }
    for (Thread thread : closing) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void writes(RaftClient client) throws IOException {
    for (int i = 0; i < WRITES_PER_LEADER; i++) {
      RaftClientReply reply = client.io().send(Message.valueOf(ENTRY));
      if (!reply.isSuccess()) {
        throw new IOException("a warm-up write failed: " + reply.getException());
      }
    }
  }

  private static RaftGroup group() throws IOException {
    List<RaftPeer> peers = new ArrayList<>();
    for (int i = 1; i <= SERVERS; i++) {
      peers.add(RaftPeer.newBuilder().setId(PEER_PREFIX + i).setAddress("127.0.0.1:" + freePort()).build());
    }
    return RaftGroup.valueOf(RaftGroupId.randomId(), peers);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static RaftProperties properties(Path storage, SupportedRpcType rpc, RaftPeer self) {
    RaftProperties properties = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(properties, List.of(storage.toFile()));
    RaftConfigKeys.Rpc.setType(properties, rpc);
    int port = Integer.parseInt(self.getAddress().substring(self.getAddress().lastIndexOf(':') + 1));
    if (rpc == SupportedRpcType.NETTY) {
      NettyConfigKeys.Server.setHost(properties, "127.0.0.1");
      NettyConfigKeys.Server.setPort(properties, port);
    } else {
      GrpcConfigKeys.Server.setHost(properties, "127.0.0.1");
      GrpcConfigKeys.Server.setPort(properties, port);
    }
    // Shorter than the real group's (the first election waits one out), long enough that the
    // group's own cold code and a starting member's busy CPU do not set off elections.
    TimeDuration min = TimeDuration.valueOf(300, TimeUnit.MILLISECONDS);
    TimeDuration max = TimeDuration.valueOf(600, TimeUnit.MILLISECONDS);
    RaftServerConfigKeys.Rpc.setTimeoutMin(properties, min);
    RaftServerConfigKeys.Rpc.setTimeoutMax(properties, max);
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, min);
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(properties, max);
    RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, false); // as the real group
    return properties;
  }

  private static RaftClient client(RaftGroup group, SupportedRpcType rpc) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, rpc);
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setRaftGroup(group)
        .setClientId(ClientId.randomId())
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(200,
            TimeDuration.valueOf(20, TimeUnit.MILLISECONDS)))
        .build();
  }

  private static void delete(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.delete(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException | UncheckedIOException e) {
      log.warn("could not delete the leader warm-up's directory {}: {}", directory, e.toString());
    }
  }
}
