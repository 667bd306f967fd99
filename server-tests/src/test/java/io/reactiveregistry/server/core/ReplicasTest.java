package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Ephemeral instances across nodes: each node streams the changes of what its own connections own,
 * the others keep them per node and show the newest claim of each instance. Three registries play
 * three nodes whose clocks disagree by an hour; {@link #ship} plays the streams.
 */
class ReplicasTest {
  private static final long HOUR = Duration.ofHours(1).toMillis();
  private final ManualClock clock1 = new ManualClock(10 * HOUR + HOUR); // an hour ahead
  private final ManualClock clock2 = new ManualClock(10 * HOUR);
  private final ManualClock clock3 = new ManualClock(10 * HOUR - HOUR); // an hour behind
  private final Map<String, Registry> nodes = new HashMap<>();
  private final Registry n1 = node("n1", clock1);
  private final Registry n2 = node("n2", clock2);
  private final Registry n3 = node("n3", clock3);
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");
  private final Owner client1 = new Owner(1, "app@127.0.0.1:40001");
  private final Owner client2 = new Owner(2, "app@127.0.0.1:40002");

  private Registry node(String id, ManualClock clock) {
    Registry registry = new Registry(clock, RegistryConfig.DEFAULTS, LifecycleConfig.DEFAULTS, new Random(7), id);
    nodes.put(id, registry);
    return registry;
  }

  private static InstanceSpec instance(int port) {
    return InstanceSpec.of("instance", "127.0.0.1", port, null, 1.0, null, null);
  }

  private String name(Registry registry) {
    return nodes.entrySet().stream().filter(e -> e.getValue() == registry).findFirst().orElseThrow().getKey();
  }

  /** Streams what {@code from} changed of its claims to every other node; returns them. */
  private List<ReplicaChange> ship(Registry from) {
    List<ReplicaChange> changes = from.takeReplicaChanges();
    for (Registry to : nodes.values()) {
      if (to != from) {
        to.apply(new Command.ApplyReplica(name(from), changes, false));
      }
    }
    return changes;
  }

  /** Streams until no node has anything left to stream (a withdrawal answers another node's claim). */
  private void shipAll() {
    boolean shipped;
    do {
      shipped = false;
      for (Registry node : List.of(n1, n2, n3)) {
        shipped |= !ship(node).isEmpty();
      }
    } while (shipped);
  }

  private static ReplicaDigest digestOf(List<ReplicaChange.Claimed> claims) {
    ReplicaDigest digest = ReplicaDigest.EMPTY;
    for (ReplicaChange.Claimed claim : claims) {
      digest = digest.plus(claim);
    }
    return digest;
  }

  private static List<InstanceView> shown(Registry registry, ServiceKey service) {
    return registry.view(service, ViewFilter.ALL).instances().stream()
        .sorted(Comparator.comparing(InstanceView::instanceId)).toList();
  }

  @Test
  void aRegistrationOnOneNodeIsShownOnEveryOtherAndItsReleaseRemovesItEverywhere() {
    n1.register(client1, orders, true, instance(8080));
    n1.takeEvents();
    ship(n1);
    for (Registry peer : List.of(n2, n3)) {
      assertThat(peer.takeEvents()).singleElement().satisfies(event -> {
        assertThat(event).isInstanceOf(RegistryEvent.InstanceUpserted.class);
        assertThat(event.cause()).isEqualTo(ChangeCause.REPLICATED);
        assertThat(event.actor().node()).as("the node that owns the change").isEqualTo("n1");
      });
      assertThat(shown(peer, orders)).isEqualTo(shown(n1, orders));
      assertThat(peer.takeReplicaChanges()).as("a copy is not streamed on").isEmpty();
    }

    n1.release(client1);
    assertThat(ship(n1)).singleElement().isInstanceOf(ReplicaChange.Withdrawn.class);
    assertThat(shown(n2, orders)).isEmpty();
    assertThat(shown(n3, orders)).isEmpty();
    assertThat(n2.takeEvents()).last().isInstanceOf(RegistryEvent.InstanceRemoved.class);
  }

  @Test
  void aNewerRegistrationOnAnotherNodeTakesTheInstanceOverEvenWithThatNodesClockAnHourBehind() {
    n1.register(client1, orders, true, instance(8080)); // n1's clock is an hour ahead of n3's
    shipAll();
    n3.register(client2, orders, true, instance(8080)); // the client lost n1 and came to n3
    shipAll();
    for (Registry node : List.of(n1, n2, n3)) {
      assertThat(shown(node, orders)).hasSize(1);
    }
    assertThat(n1.claims()).as("n1 no longer claims it").isEmpty();
    assertThat(n1.heartbeat(client1, orders, instance(8080))).as("n3's now: register it here again to take it back")
        .isEqualTo(HeartbeatOutcome.IGNORED_OTHER_NODE);

    // n1 notices its dead connection only now: its release must not remove n3's registration.
    assertThat(n1.release(client1)).isZero();
    shipAll();
    for (Registry node : List.of(n1, n2, n3)) {
      assertThat(shown(node, orders)).as("on every node").hasSize(1);
    }
    assertThat(n3.claims()).singleElement().satisfies(claim -> assertThat(claim.instanceId())
        .isEqualTo("127.0.0.1#8080#DEFAULT"));
  }

  @Test
  void theNewerClaimIsShownWhicheverStreamArrivesFirst() {
    n1.register(client1, orders, true, instance(8080));
    List<ReplicaChange> fromN1 = n1.takeReplicaChanges();
    n2.apply(new Command.ApplyReplica("n1", fromN1, false));
    n2.register(client2, orders, true, instance(8080)); // after n2 saw n1's claim: newer
    List<ReplicaChange> fromN2 = n2.takeReplicaChanges();

    n3.apply(new Command.ApplyReplica("n2", fromN2, false)); // n3 hears n2 first, then n1's older claim
    n3.apply(new Command.ApplyReplica("n1", fromN1, false));
    assertThat(shown(n3, orders)).singleElement().satisfies(view -> assertThat(view.instanceId())
        .isEqualTo("127.0.0.1#8080#DEFAULT"));
    n3.takeEvents();
    n1.apply(new Command.ApplyReplica("n2", fromN2, false));
    assertThat(n1.claims()).as("n1's older claim gave way").isEmpty();

    shipAll(); // n1's withdrawal reaches n3: n2's claim is still shown, no event
    assertThat(shown(n3, orders)).hasSize(1);
    assertThat(n3.takeEvents()).isEmpty();
    n2.release(client2);
    shipAll();
    for (Registry node : List.of(n1, n2, n3)) {
      assertThat(shown(node, orders)).isEmpty();
    }
  }

  @Test
  void aTakeOverSeenFirstAsTheOldNodesWithdrawalKeepsTheInstanceShownUntilTheNewClaimArrives() {
    n1.register(client1, orders, true, instance(8080));
    shipAll();
    n2.register(client2, orders, true, instance(8080)); // the client moved from n1 to n2
    List<ReplicaChange> fromN2 = n2.takeReplicaChanges();
    n1.apply(new Command.ApplyReplica("n2", fromN2, false));
    List<ReplicaChange> fromN1 = n1.takeReplicaChanges();
    assertThat(fromN1).singleElement().isInstanceOfSatisfying(ReplicaChange.Withdrawn.class, withdrawn -> {
      assertThat(withdrawn.takenOverBy()).isEqualTo("n2");
      assertThat(withdrawn.stamp()).isEqualTo(((ReplicaChange.Claimed) fromN2.get(0)).stamp());
    });
    n3.takeEvents();

    // n3 hears n1's withdrawal before n2's claim (two streams): the instance stays, nothing is pushed.
    n3.apply(new Command.ApplyReplica("n1", fromN1, false));
    assertThat(shown(n3, orders)).hasSize(1);
    assertThat(n3.takeEvents()).isEmpty();
    assertThat(n3.replicaDigest("n1")).as("n1's copies agree with n1's claims meanwhile")
        .isEqualTo(n1.claimsDigest());
    n3.apply(new Command.ApplyReplica("n2", fromN2, false));
    assertThat(shown(n3, orders)).hasSize(1);
    assertThat(n3.takeEvents()).as("n2's copy replaces n1's: the same instance, no change a subscriber sees")
        .allSatisfy(event -> assertThat(event).isNotInstanceOf(RegistryEvent.InstanceRemoved.class));

    // The same withdrawal, and the taking node lost before its claim arrived: the instance goes.
    n1.register(client1, orders, true, instance(8081));
    shipAll();
    n2.register(client2, orders, true, instance(8081));
    n1.apply(new Command.ApplyReplica("n2", n2.takeReplicaChanges(), false));
    n3.apply(new Command.ApplyReplica("n1", n1.takeReplicaChanges(), false));
    assertThat(shown(n3, orders)).extracting(InstanceView::port).containsExactly(8080, 8081);
    n3.apply(new Command.DropReplica("n2"));
    assertThat(shown(n3, orders)).as("neither n2's 8080 nor the 8081 it never confirmed").isEmpty();
  }

  @Test
  void aPeerRestartedWithinTheGraceKeepsItsLastRunsInstancesShownUntilTheGraceEndsOrAnotherNodeTakesThemOver() {
    n1.register(client1, orders, true, instance(8080));
    n1.register(client2, orders, true, instance(8081));
    shipAll();
    n2.takeEvents();

    // n1 was stopped (n2 keeps its copies for a 4 s grace) and, 1 s later, runs again: its new
    // run's snapshot claims nothing. Its clients are on their way to other members meanwhile.
    clock2.advance(Duration.ofSeconds(1));
    long graceEnds = clock2.millis() + 3_000;
    n2.apply(new Command.ApplyReplica("n1", List.of(), true, graceEnds));
    assertThat(shown(n2, orders)).extracting(InstanceView::port).containsExactly(8080, 8081);
    assertThat(n2.takeEvents()).as("nothing a subscriber sees").isEmpty();
    assertThat(n2.replicaDigest("n1")).as("the copies agree with n1's new run").isEqualTo(ReplicaDigest.EMPTY);

    // 8080's client registers on n3: taken over there, without a change here.
    n3.register(new Owner(3, "app@127.0.0.1:40003"), orders, true, instance(8080));
    ship(n3);
    assertThat(n2.takeEvents()).allSatisfy(event -> assertThat(event).isNotInstanceOf(
        RegistryEvent.InstanceRemoved.class));

    // The grace over, what nobody took over goes, for the member's loss; the rest stays.
    clock2.advance(Duration.ofMillis(2_999));
    n2.expire();
    assertThat(shown(n2, orders)).hasSize(2);
    clock2.advance(Duration.ofMillis(1));
    n2.expire();
    assertThat(shown(n2, orders)).extracting(InstanceView::port).containsExactly(8080);
    assertThat(n2.takeEvents()).singleElement().satisfies(event -> {
      assertThat(event).isInstanceOf(RegistryEvent.InstanceRemoved.class);
      assertThat(event.cause()).isEqualTo(ChangeCause.MEMBER_LOST);
    });

    // A snapshot outside any grace (a repair of a stream that never ended) replaces at once.
    n1.register(client1, orders, true, instance(8082));
    shipAll();
    n2.takeEvents();
    n2.apply(new Command.ApplyReplica("n1", List.of(), true));
    assertThat(shown(n2, orders)).extracting(InstanceView::port).containsExactly(8080);
  }

  @Test
  void copiesHaveNoHeartbeatDeadlinesHereTheirNodeExpiresThemAndTheRemovalIsStreamed() {
    n1.register(client1, orders, true, instance(8080));
    shipAll();
    Duration pastDeleteTimeout = Duration.ofMillis(HeartbeatTimings.DEFAULTS.deleteTimeoutMs() + 1_000);
    clock2.advance(pastDeleteTimeout);
    n2.expire();
    assertThat(shown(n2, orders)).as("n2 does not expire n1's copy").hasSize(1);

    clock1.advance(Duration.ofMillis(HeartbeatTimings.DEFAULTS.timeoutMs() + 1));
    n1.expire(); // unhealthy: a change of the claim
    assertThat(n1.claimsDigest()).isEqualTo(digestOf(n1.claims()));
    shipAll();
    assertThat(n2.replicaDigest("n1")).isEqualTo(n1.claimsDigest());
    assertThat(shown(n2, orders)).singleElement().satisfies(view -> assertThat(view.healthy()).isFalse());
    clock1.advance(pastDeleteTimeout);
    n1.expire();
    assertThat(n1.claimsDigest()).isEqualTo(ReplicaDigest.EMPTY);
    shipAll();
    assertThat(shown(n2, orders)).isEmpty();
  }

  @Test
  void aSnapshotReplacesEveryCopyOfItsNodeAndALostNodesCopiesGoUnlessTakenOver() {
    n1.register(client1, orders, true, instance(8080));
    n1.register(client1, orders, true, instance(8081));
    shipAll();
    n2.register(client2, orders, true, instance(8081)); // taken over on n2
    shipAll();
    assertThat(n3.replicaCopies("n1")).isEqualTo(1);

    // n1 came back with a new epoch and other instances: its snapshot replaces its old copies.
    Registry restarted = new Registry(clock1, RegistryConfig.DEFAULTS, LifecycleConfig.DEFAULTS, new Random(1), "n1");
    restarted.register(client1, orders, true, instance(9090));
    n3.apply(new Command.ApplyReplica("n1", List.copyOf(restarted.claims()), true));
    assertThat(shown(n3, orders)).extracting(InstanceView::port).containsExactly(8081, 9090);

    // n1 lost: after the grace period its copies go; n2's take-over stays.
    n3.apply(new Command.DropReplica("n1"));
    assertThat(shown(n3, orders)).extracting(InstanceView::port).containsExactly(8081);
  }

  @Test
  void digestsOfTheOwnersClaimsAndOfAPeersCopiesAgreeUntilAChangeIsMissed() {
    n1.register(client1, orders, true, instance(8080));
    n1.register(client1, orders, true, instance(8081));
    shipAll();
    assertThat(n2.replicaDigest("n1")).isEqualTo(n1.claimsDigest()).isNotEqualTo(ReplicaDigest.EMPTY);
    assertThat(n1.claimsDigest().count()).isEqualTo(2);

    n1.deregister(client1, orders, "127.0.0.1", 8081, "DEFAULT");
    n1.takeReplicaChanges(); // lost on the way
    assertThat(n2.replicaDigest("n1")).isNotEqualTo(n1.claimsDigest());
    n2.apply(new Command.ApplyReplica("n1", List.copyOf(n1.claims()), true)); // the repair: a new snapshot
    assertThat(n2.replicaDigest("n1")).isEqualTo(n1.claimsDigest());
    assertThat(shown(n2, orders)).extracting(InstanceView::port).containsExactly(8080);
  }

  @Test
  void aCopyOfAnInstanceOfAServiceThatIsPersistentHereIsNotShown() {
    n2.register(client2, orders, false, instance(5432));
    n1.register(client1, orders, true, instance(8080));
    ship(n1);
    assertThat(shown(n2, orders)).extracting(InstanceView::port).containsExactly(5432);
  }

  /** The cluster-wide fold invariant: after random churn on every node and every stream delivered, all nodes show the same. */
  @Test
  void afterRandomChurnOnEveryNodeEveryNodeShowsTheSameInstances() {
    Random random = new Random(42);
    List<Registry> all = List.of(n1, n2, n3);
    List<Owner> clients = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      clients.add(new Owner(100 + i, "app" + i + "@127.0.0.1:" + (41000 + i)));
    }
    Map<Owner, Registry> connectedTo = new HashMap<>();
    for (int step = 0; step < 2_000; step++) {
      Owner client = clients.get(random.nextInt(clients.size()));
      Registry node = connectedTo.computeIfAbsent(client, c -> all.get(random.nextInt(3)));
      int port = 8000 + random.nextInt(20);
      switch (random.nextInt(5)) {
        case 0, 1 -> node.register(client, orders, true, instance(port));
        case 2 -> node.apply(new Command.Deregister(client, orders, instance(port).instanceId()));
        case 3 -> {
          node.release(client);
          connectedTo.remove(client); // it reconnects, perhaps elsewhere
        }
        default -> ship(all.get(random.nextInt(3)));
      }
      clock1.advanceMillis(random.nextInt(3));
      clock2.advanceMillis(random.nextInt(3));
      clock3.advanceMillis(random.nextInt(3));
    }
    shipAll();
    // A handover whose taking node claimed and withdrew the instance before the old node's
    // withdrawal arrived waits in vain: it ends after its wait.
    for (ManualClock clock : List.of(clock1, clock2, clock3)) {
      clock.advanceMillis(Replicas.HANDOVER_WAIT);
    }
    all.forEach(Registry::expire);
    shipAll();
    assertThat(shown(n2, orders)).isEqualTo(shown(n1, orders));
    assertThat(shown(n3, orders)).isEqualTo(shown(n1, orders));
    for (Registry node : all) {
      assertThat(node.claimsDigest()).as("the digest kept up to date equals one read from every claim")
          .isEqualTo(digestOf(node.claims()));
      for (Registry peer : all) {
        if (peer != node) {
          assertThat(peer.replicaDigest(name(node))).isEqualTo(node.claimsDigest());
        }
      }
    }
    int claimed = all.stream().mapToInt(node -> node.claims().size()).sum();
    assertThat(claimed).as("each instance shown is claimed by exactly one node").isEqualTo(shown(n1, orders).size());
  }
}
