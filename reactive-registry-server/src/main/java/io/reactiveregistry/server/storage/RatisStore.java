package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.cluster.ClusterConfig;
import io.reactiveregistry.server.cluster.ClusterStatus;
import io.reactiveregistry.server.cluster.Membership;
import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.TraceContext;
import io.reactiveregistry.server.process.FatalErrors;
import io.reactiveregistry.server.tls.TlsFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.RaftServerRpcWithProxy;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Durable state on Apache Ratis: a group of one node on local disk, or of every member of a
 * cluster (each member's log on its own disk; a write commits once a majority holds it). Changes are written through
 * the {@link LogWriter}'s thread into the Raft log (fsync'd before commit) and acknowledged once
 * committed; {@link RegistryStateMachine} snapshots them; at start the snapshot and the log after
 * it are replayed, and {@link #restored} hands the result to the core.
 */
public final class RatisStore implements Storage {
  private static final Logger log = LoggerFactory.getLogger(RatisStore.class);

  /**
   * The one Raft group of the durable state; fixed, so that a restart finds its group's directory
   * under the data directory.
   */
  public static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes("reactive-registry".getBytes(StandardCharsets.UTF_8)));
  static final RaftPeerId SELF = RaftPeerId.valueOf("registry-1");
  /**
   * A write not committed in this time counts as failed: Ratis leaves a write whose log append
   * failed pending rather than failing it, and a caller must not wait forever. Below the Java
   * client's 10 s request timeout, so that the client reads why rather than timing out; a healthy
   * single node commits in milliseconds.
   */
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(8);

  /**
   * In a cluster, a write not committed in this time is refused as {@code UNAVAILABLE}: no
   * majority answered (or no leader was elected) in time. An election takes about two election
   * timeouts; this leaves room for one and the commit after it.
   */
  static final Duration CLUSTER_COMMIT_TIMEOUT = Duration.ofSeconds(5);
  /**
   * A follower starts an election after not hearing from the leader for a random time between these.
   * The minimum decides how long a pause (a JVM's, or a busy machine's) may hold up the leader's
   * heartbeats (every half of it) before the others elect another; the maximum bounds how long the
   * group is without a leader after a crash: the first election is at most this long coming. A
   * narrower window makes two candidates at once (a split vote, another round) a little likelier.
   */
  static final Duration ELECTION_TIMEOUT_MIN = Duration.ofMillis(800);
  static final Duration ELECTION_TIMEOUT_MAX = Duration.ofMillis(1200);
  /** The leader reports a member down once it has not heard from it for this long. */
  static final Duration MEMBER_SILENCE_LIMIT = Duration.ofMillis(3200);
  /** How long a member's write waits for the leader it was sent to before trying another member. */
  static final Duration REQUEST_TIMEOUT = Duration.ofMillis(1000);
  /** How long a membership change may take, the new member's catching up included. */
  public static final Duration MEMBERSHIP_TIMEOUT = Duration.ofSeconds(60);
  /** How often a write refused by a leader handing over is sent again. */
  private static final Duration STEPPING_DOWN_RETRY = Duration.ofMillis(10);

  private final StorageConfig config;
  /** The members as the group last committed them; fixed on a single node. */
  private final Membership membership;
  private final RaftServer server;
  private final RegistryStateMachine stateMachine;
  private final LogWriter writer;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private final long openedAtNanos;
  private final AtomicReference<Throwable> failure;
  /**
   * Writes to the group's leader, wherever it is; null on a single node, which writes to itself,
   * and on a joining member until the group has added it.
   */
  private volatile @Nullable RaftClient client;
  private final @Nullable LeaderPathWarmUp warmUp;
  private final RaftProperties properties;
  private final Parameters parameters;
  /** Membership changes, which wait for the group to commit them (a cluster only). */
  private final ExecutorService membershipChanges = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "registry-membership");
    thread.setDaemon(true);
    return thread;
  });
  private final LeaderWatch leader;
  /** Sends the read-index requests of consistent reads (a cluster only). */
  private final ExecutorService consistentReads = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "registry-consistent-reads");
    thread.setDaemon(true);
    return thread;
  });
  /** The one thread that sends this node's entries to the group, in order (a cluster only). */
  private final ExecutorService clusterWrites = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "registry-cluster-writer");
    thread.setDaemon(true);
    return thread;
  });

  private RatisStore(StorageConfig config, Membership membership, RaftServer server,
      RegistryStateMachine stateMachine, AtomicReference<Throwable> failure, long openedAtNanos, String origin,
      @Nullable RaftClient client, LeaderWatch leader, RaftProperties properties, Parameters parameters,
      @Nullable LeaderPathWarmUp warmUp) {
    this.config = config;
    this.warmUp = warmUp;
    this.membership = membership;
    this.properties = properties;
    this.parameters = parameters;
    ClusterConfig cluster = membership.current();
    this.server = server;
    this.stateMachine = stateMachine;
    this.failure = failure;
    this.writer = new LogWriter(this::write, origin, cluster.clustered() ? CLUSTER_COMMIT_TIMEOUT : null);
    this.openedAtNanos = openedAtNanos;
    this.client = client;
    this.leader = leader;
  }

  /**
   * Opens (or creates) the store in {@code config.dataDir()} and starts Ratis: a group of this node
   * alone, or of every member of {@code config.cluster()}. Blocking: file I/O.
   */
  public static RatisStore open(StorageConfig config) throws IOException {
    return open(config, null);
  }

  /**
   * Opens the store as {@link #open(StorageConfig)} does; a cluster's members talk Raft over TLS
   * when {@code tls} is given (see {@link RaftTransport}). Blocking: file I/O.
   */
  public static RatisStore open(StorageConfig config, @Nullable TlsFiles tls) throws IOException {
    return open(config, tls, null);
  }

  /** As above, the snapshots written by {@code snapshotWriter} (null: a thread of the store's own). */
  static RatisStore open(StorageConfig config, @Nullable TlsFiles tls, @Nullable Executor snapshotWriter)
      throws IOException {
    long openedAtNanos = System.nanoTime();
    Files.createDirectories(config.dataDir());
    Path groupDirectory = config.dataDir().resolve(GROUP_ID.getUuid().toString());
    // A member joining a running cluster starts outside the group: the leader adds it, then sends
    // it the state (a snapshot, then the log). Once it holds a log it is a member like any other.
    BackupFile.Contents seed = config.restoreFrom() == null ? null : seed(config.restoreFrom(), groupDirectory);
    ClusterConfig cluster = MembershipFile.check(config.dataDir(), config.cluster(), groupDirectory);
    // Until the group adds it, the membership it knows is itself alone (and so after a restart
    // before it was added: it never forms a group of its own).
    boolean joining = config.join() != null && cluster.members().size() == 1;
    Membership membership = new Membership(cluster);
    RaftProperties properties = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(properties, List.of(config.dataDir().toFile()));
    Parameters parameters;
    if (cluster.clustered()) {
      parameters = RaftTransport.configure(properties, cluster.self().host(), cluster.self().raftPort(), tls);
      if (!RaftTransport.authenticatesPeers(tls)) {
        log.warn("The Raft port {} accepts any peer that reaches it ({}): keep it on a private network, or give "
            + "--tls-cert-file, --tls-key-file and --tls-client-ca-file for mutual TLS between members",
            cluster.self().raftAddress(), tls == null ? "plain TCP" : "TLS without client certificates");
      }
      TimeDuration min = TimeDuration.valueOf(ELECTION_TIMEOUT_MIN.toMillis(), TimeUnit.MILLISECONDS);
      TimeDuration max = TimeDuration.valueOf(ELECTION_TIMEOUT_MAX.toMillis(), TimeUnit.MILLISECONDS);
      RaftServerConfigKeys.Rpc.setTimeoutMin(properties, min);
      RaftServerConfigKeys.Rpc.setTimeoutMax(properties, max);
      RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(properties, min);
      RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(properties, max);
      // A request to a leader that does not answer is retried elsewhere after this; the commit
      // timeout bounds the whole write. A write sent to a leader just killed waits this long
      // before it goes to the new one, so it bounds the pause a leader's loss costs (with the
      // election timeout); a commit slower than this (an fsync under heavy load) is sent again,
      // which Ratis's retry cache answers without applying it twice.
      RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(REQUEST_TIMEOUT.toMillis(),
          TimeUnit.MILLISECONDS));
      // Read-only requests (the consistent reads of catchUp) on any member: a follower asks the
      // leader for its commit index and answers once it has applied that far.
      RaftServerConfigKeys.Read.setOption(properties, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
      // A member being added is caught up (a snapshot, then the log) before it votes; the change is
      // abandoned when it makes no progress for this long.
      RaftServerConfigKeys.setStagingTimeout(properties, TimeDuration.valueOf(MEMBERSHIP_TIMEOUT.toMillis() / 2,
          TimeUnit.MILLISECONDS));
    } else {
      // One node: nothing talks to this port, so it stays on loopback.
      parameters = RaftTransport.configure(properties, "127.0.0.1", config.raftPort(), null);
    }
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, config.snapshotEvery());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf("8MB"));
    // No commit-index entries in the log: a leader appends one each time its commit index moves,
    // and one appended just after a leadership transferee has matched the log makes the others
    // refuse the transferee's votes (its last entry is older than theirs), so a planned stop
    // waited a whole election timeout. A member learns what is committed from its leader instead
    // (restored() asks it), as it must anyway to open its ports.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, false);
    RaftServerConfigKeys.Write.setElementLimit(properties, config.maxNotDurable() + 1_000);

    RaftPeerId selfId = cluster.clustered() ? RaftPeerId.valueOf(cluster.nodeId()) : SELF;
    RaftGroup group = joining ? RaftGroup.valueOf(GROUP_ID, List.of())
        : cluster.clustered() ? group(cluster.members())
        : RaftGroup.valueOf(GROUP_ID,
            RaftPeer.newBuilder().setId(SELF).setAddress("127.0.0.1:" + config.raftPort()).build());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    String origin = selfId + "/" + UUID.randomUUID();
    LeaderWatch leader = new LeaderWatch(selfId.toString());
    RegistryStateMachine stateMachine = new RegistryStateMachine(origin, cause -> failed(failure, cause),
        leader::changed, seed, !cluster.clustered() ? peers -> { } : peers -> committed(config.dataDir(), membership,
            peers), snapshotWriter);
    RaftServer server = RaftServer.newBuilder()
        .setServerId(selfId)
        .setGroup(group)
        .setProperties(properties)
        .setParameters(parameters)
        .setStateMachine(stateMachine)
        .setOption(RaftStorage.StartupOption.RECOVER) // reuse the group's directory; format it only when new
        .build();
    server.start();
    // In the background: the member serves meanwhile, and nothing waits for it.
    LeaderPathWarmUp warmUp = cluster.clustered() && config.leaderWarmUp()
        ? LeaderPathWarmUp.start(config.dataDir(), RaftTransport.rpc(tls)) : null;
    if (cluster.clustered() && !joining) {
      // A restarted member knows the membership from its log, which may be newer than its file.
      committed(config.dataDir(), membership, server.getDivision(GROUP_ID).getRaftConf().getCurrentPeers());
    }
    RaftClient client = !cluster.clustered() || joining ? null : client(properties, parameters, group);
    RatisStore store = new RatisStore(config, membership, server, stateMachine, failure, openedAtNanos, origin,
        client, leader, properties, parameters, warmUp);
    store.writer.start();
    return store;
  }

  private ClusterConfig cluster() {
    return membership.current();
  }

  /** The members as the group last committed them, to follow. */
  public Membership membership() {
    return membership;
  }

  /** True while this member waits to be added to the running cluster it was started to join. */
  public boolean joining() {
    return client == null && cluster().clustered();
  }

  /**
   * The running cluster added this joining member: from now on its writes go to the group's
   * leader. {@code members}: the membership it was added to, where the leader is found.
   */
  public void joined(List<ClusterConfig.Member> members) {
    if (client == null) {
      client = client(properties, parameters, group(members));
    }
  }

  /**
   * Adds {@code member} to the group, or gives a member its new address: Ratis's own
   * configuration change, which catches the new member up (a snapshot, then the log) before it
   * votes and completes once the new membership is committed. The members then, in order.
   */
  @Override
  public CompletableFuture<List<ClusterConfig.Member>> addMember(ClusterConfig.Member member) {
    return changeMembers(peers -> {
      peers.removeIf(peer -> peer.getId().toString().equals(member.id()));
      peers.add(peer(member));
    }, "add " + member);
  }

  /** Removes the member {@code id} from the group (the leader too: it hands over once it is out). */
  @Override
  public CompletableFuture<List<ClusterConfig.Member>> removeMember(String id) {
    return changeMembers(peers -> peers.removeIf(peer -> peer.getId().toString().equals(id)), "remove " + id);
  }

  private CompletableFuture<List<ClusterConfig.Member>> changeMembers(Consumer<List<RaftPeer>> change,
      String what) {
    if (!cluster().clustered()) {
      return CompletableFuture.failedFuture(new UnsupportedOperationException("a single server has no members "
          + "to change: start members with --node-id and --members (see the README's Running a cluster)"));
    }
    return CompletableFuture.supplyAsync(() -> {
      try (RaftClient admin = adminClient()) {
        List<RaftPeer> peers = new ArrayList<>(
            server.getDivision(GROUP_ID).getRaftConf().getCurrentPeers());
        change.accept(peers);
        log.info("membership change: {}; the group's members will be {}", what, peers.stream()
            .map(RaftPeer::getId).toList());
        RaftClientReply reply = admin.admin().setConfiguration(peers);
        if (!reply.isSuccess()) {
          throw new StorageUnavailableException("the cluster did not commit the membership change (" + what + "): "
              + reply.getException().getMessage(), StorageUnavailableException.Reason.NO_QUORUM,
              reply.getException());
        }
        committed(config.dataDir(), membership, peers);
        return cluster().members();
      } catch (IOException e) {
        throw new StorageUnavailableException("the cluster did not commit the membership change (" + what
            + ") within " + MEMBERSHIP_TIMEOUT.toSeconds() + " s: " + e.getMessage() + "; a majority of the old and "
            + "of the new members must be reachable, and a new member must be running",
            StorageUnavailableException.Reason.NO_QUORUM, e);
      }
    }, membershipChanges);
  }

  /** A client for one membership change: it waits as long as the change may take. */
  private RaftClient adminClient() throws IOException {
    RaftProperties patient = new RaftProperties(properties);
    RaftClientConfigKeys.Rpc.setRequestTimeout(patient, TimeDuration.valueOf(MEMBERSHIP_TIMEOUT.toMillis(),
        TimeUnit.MILLISECONDS));
    return RaftClient.newBuilder()
        .setProperties(patient)
        .setParameters(parameters)
        .setRaftGroup(server.getDivision(GROUP_ID).getGroup())
        .setClientId(ClientId.randomId())
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(10,
            TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)))
        .build();
  }

  /**
   * The group of these members; each peer carries its RSocket address too, so a membership change
   * tells it. It rides in the peer's data-stream address, a field Ratis leaves alone while its data
   * streams are off (they are): the client address is where Ratis's gRPC clients send requests.
   */
  private static RaftGroup group(List<ClusterConfig.Member> members) {
    return RaftGroup.valueOf(GROUP_ID, members.stream().map(RatisStore::peer).toList());
  }

  private static RaftPeer peer(ClusterConfig.Member member) {
    return RaftPeer.newBuilder().setId(member.id()).setAddress(member.raftAddress())
        .setDataStreamAddress(member.address()).build();
  }

  private static RaftClient client(RaftProperties properties, Parameters parameters, RaftGroup group) {
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(group)
        .setClientId(ClientId.randomId())
        // Finds the leader (a follower answers with who leads) and retries through an election, every
        // 20 ms: each hop after a leader change (refused by the old one, not ready at the new one)
        // waits this long, and a retry costs a loopback or LAN round trip. The commit timeout bounds
        // the whole write.
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(150,
            TimeDuration.valueOf(20, TimeUnit.MILLISECONDS)))
        .build();
  }

  /**
   * The group committed (or this member's log holds) a membership: it becomes the one every part
   * of the server follows, and the one the membership file records for the next start. A member
   * this node knew keeps the addresses it had here; a new one takes those the group carries (one
   * without an RSocket address, from a group started before peers carried one, is left out).
   */
  private static void committed(Path dataDir, Membership membership, Collection<RaftPeer> peers) {
    if (peers.isEmpty()) {
      return; // a joining member, not yet added
    }
    ClusterConfig known = membership.current();
    List<ClusterConfig.Member> members = new ArrayList<>();
    for (RaftPeer peer : peers) {
      String id = peer.getId().toString();
      // How this member reaches a peer it knows is its own configuration (a proxy, another
      // interface): only the members it did not know take the addresses the group carries.
      Optional<ClusterConfig.Member> local = known.member(id);
      if (local.isPresent()) {
        members.add(local.get());
        continue;
      }
      String raft = peer.getAddress();
      int colon = raft.lastIndexOf(':');
      String host = raft.substring(0, colon).replace("[", "").replace("]", "");
      int raftPort = Integer.parseInt(raft.substring(colon + 1));
      String client = peer.getDataStreamAddress();
      int port = client != null && client.lastIndexOf(':') > 0
          ? Integer.parseInt(client.substring(client.lastIndexOf(':') + 1))
          : -1;
      if (port < 1) {
        log.warn("the group's member {} at {} carries no RSocket address; it is left out of the members this "
            + "node reaches until it is added again with one", id, raft);
        continue;
      }
      members.add(new ClusterConfig.Member(id, host, port, raftPort));
    }
    members.sort(Comparator.comparing(ClusterConfig.Member::id));
    List<ClusterConfig.Member> ordered = sameOrder(known.members(), members);
    if (membership.update(ordered)) {
      log.info("the cluster's members are now {}", membership.current());
      MembershipFile.write(dataDir, membership.current());
    }
  }

  /** The members in the order they were known, new ones at the end: a change does not reorder the list. */
  private static List<ClusterConfig.Member> sameOrder(List<ClusterConfig.Member> before,
      List<ClusterConfig.Member> after) {
    List<ClusterConfig.Member> ordered = new ArrayList<>();
    for (ClusterConfig.Member old : before) {
      after.stream().filter(member -> member.id().equals(old.id())).findFirst().ifPresent(ordered::add);
    }
    after.stream().filter(member -> !ordered.contains(member)).forEach(ordered::add);
    return ordered;
  }

  /**
   * The backup a new data directory starts from, verified; refused when the directory already
   * holds durable state (a restore never mixes a backup with other data).
   */
  private static BackupFile.Contents seed(Path backup, Path groupDirectory) throws IOException {
    if (Files.exists(groupDirectory)) {
      throw new IllegalStateException("--restore-from starts a new data directory, and " + groupDirectory.getParent()
          .toAbsolutePath() + " already holds durable state: give an empty --data-dir (every member of a new "
          + "cluster, each with the same backup file), or start without --restore-from to keep what is there");
    }
    BackupFile.Contents contents = BackupFile.read(backup);
    log.info("restoring {} durable values at revision {} from {}", contents.values().size(), contents.revision(),
        backup.toAbsolutePath());
    return contents;
  }

  /**
   * Hands the durable state as it is now to {@code restore} (values and revision), then tells
   * {@code follower} of every entry applied after it, in log order: nothing falls between the two.
   */
  @Override
  public void follow(CommittedEntries follower, BiConsumer<List<DurableChange>, Long> restore) {
    stateMachine.follow(follower, state -> restore.accept(state.values(), state.revision()));
  }

  /**
   * Completes once this node leads its group and has applied every committed entry: the state
   * it then holds is everything that was acknowledged before the last stop or crash.
   */
  @Override
  public Mono<Restored> restored(Duration timeout) {
    // Polled off the event loops and the parallel scheduler: Ratis's accessors may wait on its own locks.
    return Flux.interval(Duration.ZERO, Duration.ofMillis(10), Schedulers.boundedElastic())
        .filter(tick -> caughtUp())
        .next()
        // A follower's own log does not say how far the group has committed: it asks its leader
        // (the read index) and applies that far, so that nothing acknowledged before the restart is
        // missing when the ports open.
        .then(Mono.defer(() -> leading() ? Mono.<Void>empty() : Mono.fromFuture(this::catchUp))
            .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(50)).maxBackoff(Duration.ofSeconds(1))))
        .timeout(timeout, Mono.error(() -> new IllegalStateException(
            "storage in " + config.dataDir() + " was not restored within " + timeout)))
        .then(Mono.fromSupplier(() -> new Restored(stateMachine.state().values(), stateMachine.state().revision(),
            Duration.ofNanos(System.nanoTime() - openedAtNanos))));
  }

  /** The leader this member knows of (itself, when it leads); null during an election: the client's own then. */
  private @Nullable RaftPeerId knownLeader() {
    try {
      return server.getDivision(GROUP_ID).getInfo().getLeaderId();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * This node has joined its group and applied what it knows to be committed: a single node (or a
   * cluster's leader) once it leads, a follower once it hears from a leader.
   */
  private boolean caughtUp() {
    try {
      RaftServer.Division division = server.getDivision(GROUP_ID);
      DivisionInfo info = division.getInfo();
      // A single node only as a ready leader: as a follower that knows a leader it can only have
      // led and stepped down, and its writes would be refused until it leads again.
      boolean joined = info.isLeader() ? info.isLeaderReady()
          : cluster().clustered() && info.isFollower() && info.getLeaderId() != null;
      return joined && info.getLastAppliedIndex() >= division.getRaftLog().getLastCommittedIndex();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True when this store is one member of a cluster's group. */
  @Override
  public boolean replicated() {
    return cluster().clustered();
  }

  @Override
  public List<DurableChange> committedValues(Collection<DurableChange.Subject> subjects) {
    return stateMachine.state().values(subjects);
  }

  /** True while this node leads its group (always, once started, on a single node). */
  @Override
  public boolean leading() {
    return !cluster().clustered() || leader.leading();
  }

  /** What this node knows of its cluster now. Blocking (Ratis's locks): call it off the event loops. */
  public ClusterStatus status() {
    try {
      RaftServer.Division division = server.getDivision(GROUP_ID);
      return ClusterStatuses.of(cluster(), division, MEMBER_SILENCE_LIMIT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public @Nullable String handOffLeadership(Duration timeout, Collection<String> up) {
    if (client == null || !leader.leading()) {
      return null;
    }
    // The member furthest along among those in step and heard from within one heartbeat round:
    // it needs the least to catch up before it may lead (Ratis waits for it to match the log, then
    // tells it to start an election at once).
    ClusterStatus heard;
    try {
      heard = ClusterStatuses.of(cluster(), server.getDivision(GROUP_ID), ELECTION_TIMEOUT_MIN);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Optional<ClusterStatus.MemberStatus> next = heard.members().stream()
        .filter(member -> !member.id().equals(cluster().nodeId()) && "follower".equals(member.state())
            && up.contains(member.id()))
        .max(Comparator.comparingLong(ClusterStatus.MemberStatus::commitIndex));
    if (next.isEmpty()) {
      log.warn("stopping while leading, with no member in step to hand leadership to: the others elect a leader "
          + "after the election timeout");
      return null;
    }
    long start = System.nanoTime();
    try {
      // Asked of this node's own server, not through a client: Ratis's Netty transport answers each
      // request on the event loop that read it, blocking until it is done, so a transfer asked over
      // the Raft port would hold that loop for the whole hand-over, and with it the other members'
      // forwarded writes on connections sharing it, which could not even be refused until it ended.
      RaftClientReply reply = server.transferLeadershipAsync(new TransferLeadershipRequest(clientId,
              RaftPeerId.valueOf(cluster().nodeId()), GROUP_ID, callIds.incrementAndGet(),
              RaftPeerId.valueOf(next.get().id()), timeout.toMillis()))
          .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
      if (reply.isSuccess()) {
        log.info("handed leadership to {} in {} ms before stopping", next.get().id(),
            (System.nanoTime() - start) / 1_000_000);
        return next.get().id();
      }
      log.warn("could not hand leadership to {} before stopping ({}): the others elect a leader after the "
          + "election timeout", next.get().id(), reply.getException());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
      log.warn("could not hand leadership to {} before stopping ({}): the others elect a leader after the "
          + "election timeout", next.get().id(), e.toString());
    }
    return null;
  }

  /**
   * Keeps this node's Raft connection to a peer ready for an election. Ratis's Netty transport
   * connects to a peer (and starts the event loops of its connections) only when it first sends
   * it something, and a follower sends its peers nothing until it stands for election: a planned
   * stop's transferee connected to both voters in the middle of the hand-over, which cost its
   * votes 37-54 ms each (load-tests/RESULTS.md, "The planned stop without the bench's failing checks").
   * A peer that restarted closed the old connection, and Ratis's proxy learns of that only by
   * failing a request on it: every vote a transferee asked for failed on such connections, and
   * the group waited an election timeout with no leader (a planned stop paused writes 1.1-1.3 s
   * instead of about 0.3; "The 1.1 s hand-overs"), so a non-leader drops it first. A leader's own
   * traffic finds a closed connection within a heartbeat, so its connections are left alone.
   * Connecting may wait: done off the caller's thread.
   */
  @Override
  public void peerConnected(String peer, boolean restarted) {
    if (client == null || cluster().member(peer).isEmpty()) {
      return;
    }
    Schedulers.boundedElastic().schedule(() -> {
      RaftPeerId id = RaftPeerId.valueOf(peer);
      RaftServerRpc rpc = server.getServerRpc();
      try {
        if (restarted && !leader.leading()) {
          rpc.handleException(id, new IOException(peer + " restarted: its earlier connections are closed"), true);
          log.debug("Raft connection to {} reset: it restarted", peer);
        }
        if (rpc instanceof RaftServerRpcWithProxy<?, ?> proxies) {
          proxies.getProxies().getProxy(id); // connects, unless connected
        }
      } catch (IOException | RuntimeException e) {
        log.debug("connecting to {}'s Raft port ahead of an election", peer, e);
      }
    });
  }

  @Override
  public CompletableFuture<Void> catchUp() {
    if (client == null) {
      return CompletableFuture.completedFuture(null); // a single node commits everything itself
    }
    // The leader's read index (it confirms it still leads), then this member applies that far: a
    // follower's own read index needs Ratis's asynchronous server protocol, which the Netty
    // transport does not have, so a read sent to a follower is never answered. It goes to the
    // leader this member follows (itself, when it leads): the client's own idea of the leader can
    // be an old one (it learns of a change only when a request fails), and each follower it tried
    // would cost the request timeout. Sent from a thread of its own: Ratis's client may wait on
    // its locks.
    return CompletableFuture.supplyAsync(() -> client.async().sendReadOnly(Message.EMPTY, knownLeader()),
            consistentReads)
        .thenCompose(reply -> reply)
        .thenCompose(reply -> {
          if (!reply.isSuccess()) {
            return CompletableFuture.failedFuture(reply.getException());
          }
          return stateMachine.applied(RegistryStateMachine.appliedIndexOf(reply.getMessage()));
        })
        .orTimeout(CLUSTER_COMMIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .handle((ignored, error) -> {
          if (error != null) {
            throw new StorageUnavailableException("this member could not learn the cluster's commit index within "
                + CLUSTER_COMMIT_TIMEOUT.toSeconds() + " s, so it cannot answer a consistent read: a majority of its "
                + "members (" + (cluster().members().size() / 2 + 1) + " of " + cluster().members().size()
                + ") must be reachable; a read without \"consistent\" answers from this member's state",
                StorageUnavailableException.Reason.NO_QUORUM, error);
          }
          return null;
        });
  }

  /**
   * A backup of the durable state as committed when it was asked for: this member catches up
   * first (a follower waits for the leader's commit index), then copies its state as one (no entry
   * is applied meanwhile). Encoded off the caller's thread, which may be an event loop.
   */
  @Override
  public CompletableFuture<byte[]> backup() {
    return catchUp().thenApplyAsync(ignored -> {
      RegistryStateMachine.Backup copy = stateMachine.backup();
      return BackupFile.encode(copy.values(), copy.revision(), copy.index(), Instant.now(),
          cluster().clustered() ? cluster().nodeId() : "single");
    }, consistentReads);
  }

  @Override
  public CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision) {
    return append(writeId, changes, revision, null);
  }

  @Override
  public CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision,
      @Nullable TraceContext trace) {
    return reportingFailure(writer.append(writeId, changes, revision, trace));
  }

  @Override
  public CompletableFuture<Void> barrier() {
    return reportingFailure(writer.barrier());
  }

  /**
   * A write that did not commit means memory may now be ahead of the disk: it is logged once, and
   * from then on durable writes are refused and the server reports itself not ready.
   */
  private CompletableFuture<Void> reportingFailure(CompletableFuture<Void> durable) {
    return durable.handle((ignored, error) -> {
      if (error == null) {
        return null;
      }
      if (cluster().clustered() && failure.get() == null) {
        // Not this node's storage failing: the group did not commit in time (no majority reachable,
        // or an election under way). The write may still commit later; the log decides.
        throw new StorageUnavailableException("the cluster " + notCommitted(error) + ": a majority of its members (" + (cluster().members().size() / 2 + 1)
            + " of " + cluster().members().size() + ") must be reachable; it may still be committed if they return, "
            + "retry once they are", StorageUnavailableException.Reason.NO_QUORUM, error);
      }
      failed(failure, error);
      throw new StorageUnavailableException("storage failed to commit the change, which may not survive a "
          + "restart: " + error.getMessage(), false, error);
    });
  }

  /** How a cluster write failed, for its error: it timed out, or the log refused it (and why). */
  private static String notCommitted(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof UncheckedIOException
        || cause instanceof IllegalStateException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof TimeoutException
        ? "did not commit the change within " + CLUSTER_COMMIT_TIMEOUT.toSeconds() + " s"
        : "refused the change (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
  }

  /** Records the first failure, and says so once: from then on durable writes are refused. */
  private static void failed(AtomicReference<Throwable> failure, Throwable cause) {
    FatalErrors.check(cause); // a log worker out of memory: the process ends, if it is set to
    if (failure.compareAndSet(null, cause)) {
      log.error("storage failed: durable writes are refused and the server reports itself not ready until it "
          + "restarts (memory may now be ahead of disk)", cause);
    }
  }

  @Override
  public void checkWritable() {
    Throwable failed = failure.get();
    if (failed != null) {
      throw new StorageUnavailableException("storage has failed (" + failed.getMessage()
          + "); durable writes are refused until the server restarts", false, failed);
    }
    if (writer.notDurable() >= config.maxNotDurable()) {
      throw new StorageUnavailableException("storage is " + writer.notDurable()
          + " changes behind; durable writes are refused until it catches up, retry shortly", true, null);
    }
  }

  /** False once a write has failed; the server then reports itself not ready. */
  public boolean healthy() {
    return failure.get() == null;
  }

  /** What failed, for operators; null while storage is healthy. */
  @Override
  public @Nullable String failureDescription() {
    Throwable failed = failure.get();
    return failed == null ? null : String.valueOf(failed.getMessage() != null ? failed.getMessage() : failed);
  }

  /** Told, for each command made durable, how long it waited from being queued to its commit. */
  @Override
  public void onDurable(LongConsumer latencyNanos) {
    writer.onDurable(latencyNanos);
  }

  /** The Ratis server underneath, for this package's tests (stopping it is how they make the log fail). */
  RaftServer raftServer() {
    return server;
  }

  /** Commands whose changes are not yet durable. */
  @Override
  public int notDurable() {
    return writer.notDurable();
  }

  /** Writes one encoded entry; runs on the log writer's thread, where blocking is allowed. */
  private CompletableFuture<Void> write(byte[] entry) {
    RaftClient writes = client;
    if (writes == null && cluster().clustered()) {
      return CompletableFuture.failedFuture(new StorageUnavailableException("this member has not yet been added to "
          + "the cluster it joins: retry once it has", StorageUnavailableException.Reason.NO_QUORUM, null));
    }
    if (writes != null) {
      // One entry at a time, in order, on one thread: the log must hold this node's entries in the
      // order the core decided them, and everything queued meanwhile goes into the next entry (one
      // round trip and one fsync for all of it). The blocking client finds the leader and retries
      // through elections itself; a write not committed in time is answered UNAVAILABLE while
      // the send goes on (the log decides whether it happened).
      Message message = Message.valueOf(UnsafeByteOperations.unsafeWrap(entry));
      return CompletableFuture.supplyAsync(() -> send(writes, message), clusterWrites)
          .orTimeout(CLUSTER_COMMIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .thenAccept(RatisStore::checkSuccess);
    }
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(SELF)
        .setGroupId(GROUP_ID)
        .setCallId(callIds.incrementAndGet())
        .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry))) // the array is not touched again
        .setType(RaftClientRequest.writeRequestType())
        .build();
    try {
      return server.submitClientRequestAsync(request)
          .orTimeout(COMMIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .thenAccept(RatisStore::checkSuccess);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Sends one entry to the leader. A leader handing over its leadership (a planned stop) refuses
   * writes until the new one is elected, and Ratis's client does not retry that refusal: it is
   * sent again here, every {@link #STEPPING_DOWN_RETRY}, so that a planned stop pauses writes for
   * the handover only instead of failing them. The refused write was not appended, so sending it
   * again cannot apply it twice. The commit timeout bounds the whole.
   */
  private RaftClientReply send(RaftClient writes, Message message) {
    long deadline = System.nanoTime() + CLUSTER_COMMIT_TIMEOUT.toNanos();
    try {
      while (true) {
        try {
          RaftClientReply reply = writes.io().send(message);
          if (reply.isSuccess() || !(reply.getException() instanceof LeaderSteppingDownException)
              || System.nanoTime() > deadline) {
            return reply;
          }
        } catch (LeaderSteppingDownException e) { // the blocking client throws it as often as it answers it
          if (System.nanoTime() > deadline) {
            throw new UncheckedIOException(e);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        Thread.sleep(STEPPING_DOWN_RETRY.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("stopped while sending a write", e);
    }
  }

  private static void checkSuccess(RaftClientReply reply) {
    if (!reply.isSuccess()) {
      throw new IllegalStateException("the log refused a write", reply.getException());
    }
  }

  /** Writes what is queued, then stops Ratis. Blocking. */
  @Override
  public void close() throws IOException {
    if (warmUp != null) {
      warmUp.stop();
    }
    try {
      writer.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    clusterWrites.shutdownNow();
    consistentReads.shutdownNow();
    membershipChanges.shutdownNow();
    RaftClient writes = client;
    if (writes != null) {
      writes.close();
    }
    server.close();
  }
}
