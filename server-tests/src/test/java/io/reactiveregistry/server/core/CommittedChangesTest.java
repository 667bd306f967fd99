package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.DurableChange.InstanceSaved;
import io.reactiveregistry.server.core.DurableChange.Subject;
import io.reactiveregistry.server.core.Outcome.Counted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * How a member applies what another member decided: the durable changes one registry records,
 * applied to a second one, make the second show the same durable services and instances, with
 * events (cause REPLICATED) for its subscribers and nothing written again.
 */
class CommittedChangesTest {
  private final ManualClock clock = new ManualClock(1_000_000);
  private final Registry origin = registry();
  private final Registry replica = registry();
  private final Owner operator = new Owner(1, "operator@127.0.0.1:1");
  /** What the log would hold: the latest value of each subject. */
  private final Map<Subject, DurableChange> log = new LinkedHashMap<>();

  private Registry registry() {
    return new Registry(clock, RegistryConfig.DEFAULTS, LifecycleConfig.DEFAULTS, new Random(1));
  }

  private static InstanceSpec instance(String ip, double weight) {
    return InstanceSpec.of("instance", ip, 5432, null, weight, null, null);
  }

  /** Ships what the origin recorded since the last call to the replica; returns the replica's events. */
  private List<RegistryEvent> ship() {
    List<DurableChange> changes = origin.takeDurableChanges();
    origin.takeEvents();
    for (DurableChange change : changes) {
      if (change.removal()) {
        log.remove(change.subject());
      } else {
        log.put(change.subject(), change);
      }
    }
    Outcome outcome = replica.apply(new Command.ApplyCommitted(changes, false));
    assertThat(outcome).isEqualTo(new Counted(changes.size()));
    assertThat(replica.takeDurableChanges()).as("nothing applied from the log is written again").isEmpty();
    return replica.takeEvents();
  }

  private List<InstanceView> shown(Registry registry, ServiceKey service) {
    return registry.view(service, ViewFilter.ALL).instances().stream()
        .sorted(java.util.Comparator.comparing(InstanceView::instanceId)).toList();
  }

  @Test
  void aReplicaShowsWhatTheOriginDecidedAndTellsItsSubscribers() {
    ServiceKey db = ServiceKey.of(null, null, "db");
    origin.register(operator, db, false, instance("127.0.0.1", 1.0));
    List<RegistryEvent> events = ship();
    assertThat(events).hasSize(1).first().satisfies(event -> {
      assertThat(event).isInstanceOf(RegistryEvent.InstanceUpserted.class);
      assertThat(event.cause()).isEqualTo(ChangeCause.REPLICATED);
    });
    assertThat(shown(replica, db)).isEqualTo(shown(origin, db));

    origin.healthChecked(db, "127.0.0.1#5432#DEFAULT", new HealthCheck(0, false, 1, "test"));
    assertThat(ship()).hasSize(1);
    assertThat(shown(replica, db)).singleElement().satisfies(view -> assertThat(view.healthy()).isFalse());

    origin.patchInstance(operator, db, "127.0.0.1#5432#DEFAULT", false, 3.0, null);
    ship();
    assertThat(shown(replica, db)).isEqualTo(shown(origin, db));
    assertThat(shown(replica, db).get(0).weight()).isEqualTo(3.0);

    origin.deregister(operator, db, "127.0.0.1", 5432, "DEFAULT");
    assertThat(ship()).singleElement().isInstanceOf(RegistryEvent.InstanceRemoved.class);
    assertThat(shown(replica, db)).isEmpty();
  }

  @Test
  void randomDurableCommandsLeaveBothShowingTheSame() {
    Random random = new Random(7);
    List<ServiceKey> services = List.of(ServiceKey.of(null, null, "a"), ServiceKey.of("prod", null, "b"));
    for (int step = 0; step < 400; step++) {
      ServiceKey service = services.get(random.nextInt(services.size()));
      String ip = "127.0.0." + (1 + random.nextInt(8));
      try {
        switch (random.nextInt(6)) {
          case 0, 1 -> origin.register(operator, service, false, instance(ip, 1 + random.nextInt(3)));
          case 2 -> origin.deregister(operator, service, ip, 5432, "DEFAULT");
          case 3 -> origin.healthChecked(service, ip + "#5432#DEFAULT", new HealthCheck(0, random.nextBoolean(), 1, "test"));
          case 4 -> origin.patchInstance(operator, service, ip + "#5432#DEFAULT", random.nextBoolean(),
              (double) random.nextInt(5), null);
          default -> origin.updateService(operator, service, null, random.nextInt(10) / 10.0,
              Map.of("v", Integer.toString(step)));
        }
      } catch (RegistryException refused) {
        // an instance or service that does not exist yet: refused, nothing recorded
      }
      if (random.nextInt(4) == 0) {
        ship();
      }
      if (random.nextInt(50) == 0) {
        clock.advance(Duration.ofSeconds(1));
      }
    }
    ship();
    for (ServiceKey service : services) {
      assertThat(shown(replica, service)).as("%s", service).isEqualTo(shown(origin, service));
      assertThat(replica.service(service).map(ServiceDefinition::metadata))
          .isEqualTo(origin.service(service).map(ServiceDefinition::metadata));
    }
  }

  @Test
  void onlyTheNodeThatRemovesDurableValuesCleansUpEmptyPersistentServicesAndOldOverrides() {
    ServiceKey db = ServiceKey.of(null, null, "db");
    ServiceKey orders = ServiceKey.of(null, null, "orders");
    origin.register(operator, db, false, instance("127.0.0.1", 1.0));
    origin.patchInstance(operator, db, "127.0.0.1#5432#DEFAULT", false, null, null);
    origin.deregister(operator, db, "127.0.0.1", 5432, "DEFAULT");
    origin.register(operator, orders, true, instance("127.0.0.2", 1.0)); // ephemeral: this node's own
    origin.release(operator);
    origin.takeDurableChanges();
    clock.advance(LifecycleConfig.DEFAULTS.overrideRetention().plus(LifecycleConfig.DEFAULTS.emptyServiceCleanup()));

    assertThat(origin.apply(new Command.CleanUp(false))).isEqualTo(new Counted(1));
    assertThat(origin.exists(orders)).as("what this node alone holds goes").isFalse();
    assertThat(origin.exists(db)).as("a follower leaves durable values to the leader").isTrue();
    assertThat(origin.takeDurableChanges()).isEmpty();

    assertThat(origin.apply(new Command.CleanUp(true))).isEqualTo(new Counted(1));
    assertThat(origin.exists(db)).isFalse();
    assertThat(origin.takeDurableChanges()).extracting(change -> change.subject().kind())
        .containsExactlyInAnyOrder(DurableChange.Kind.SERVICE, DurableChange.Kind.OVERRIDE);
  }

  @Test
  void aSnapshotReplacesEverythingDurableTheReplicaHeld() {
    ServiceKey db = ServiceKey.of(null, null, "db");
    replica.register(operator, db, false, instance("127.0.0.9", 1.0)); // known to the replica only
    replica.takeDurableChanges();
    replica.takeEvents();
    origin.register(operator, db, false, instance("127.0.0.1", 2.0));
    origin.takeEvents();
    List<DurableChange> values = new ArrayList<>(origin.takeDurableChanges());

    replica.apply(new Command.ApplyCommitted(values, true));

    assertThat(shown(replica, db)).isEqualTo(shown(origin, db));
    assertThat(replica.takeEvents()).extracting(RegistryEvent::cause).containsOnly(ChangeCause.REPLICATED);
    assertThat(values).hasAtLeastOneElementOfType(InstanceSaved.class);
  }
}
