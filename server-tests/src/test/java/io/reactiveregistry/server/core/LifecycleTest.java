package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import io.reactiveregistry.server.core.RegistryEvent.ServiceDeleted;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Service lifecycle and operator controls, on virtual time. */
class LifecycleTest {
  private final ManualClock clock = new ManualClock(1_000_000);
  private final Registry registry = new Registry(clock, RegistryConfig.DEFAULTS, LifecycleConfig.DEFAULTS,
      new Random(7));
  private final Owner app = new Owner(1, "app");
  private final Owner operator = new Owner(2, "operator");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");

  private static InstanceSpec instance(int port) {
    return InstanceSpec.of("instance", "127.0.0.1", port, null, null, null, Map.of("zone", "a"));
  }

  private InstanceView only(ServiceKey key) {
    List<InstanceView> instances = registry.view(key, ViewFilter.ALL).instances();
    assertThat(instances).hasSize(1);
    return instances.get(0);
  }

  private Failure failureOf(Runnable command) {
    try {
      command.run();
    } catch (RegistryException e) {
      return e.failure();
    }
    throw new AssertionError("expected a refusal");
  }

  @Test
  void anOverrideWinsInEveryViewAndIsPushedAsAnOverride() {
    registry.register(app, orders, true, instance(1));
    registry.takeEvents();

    InstanceView shown = registry.overrideInstance(operator, orders, "127.0.0.1#1#DEFAULT",
        InstanceOverride.replacing(false, 0.0, Map.of("zone", "b", "drain", "yes")));

    assertThat(shown.enabled()).isFalse();
    assertThat(shown.weight()).isZero();
    assertThat(shown.metadata()).containsEntry("zone", "b").containsEntry("drain", "yes");
    assertThat(only(orders)).isEqualTo(shown);
    assertThat(registry.view(orders, new ViewFilter(java.util.Set.of(), true)).instances()).isEmpty();
    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceUpserted.class, e -> {
      assertThat(e.cause()).isEqualTo(ChangeCause.OVERRIDE);
      assertThat(e.actor()).isSameAs(operator);
    });
  }

  @Test
  void updateReplacesTheOverrideAndPatchChangesOnlyWhatItGives() {
    registry.register(app, orders, true, instance(1));
    String id = "127.0.0.1#1#DEFAULT";
    registry.overrideInstance(operator, orders, id, InstanceOverride.replacing(false, 5.0, Map.of("a", "1", "b", "2")));

    Map<String, String> changes = new HashMap<>();
    changes.put("a", null);
    changes.put("c", "3");
    InstanceView patched = registry.patchInstance(operator, orders, id, null, 7.0, changes);
    assertThat(patched.enabled()).isFalse();
    assertThat(patched.weight()).isEqualTo(7.0);
    assertThat(patched.metadata()).doesNotContainKey("a").containsEntry("b", "2").containsEntry("c", "3")
        .containsEntry("zone", "a");

    InstanceView replaced = registry.overrideInstance(operator, orders, id, InstanceOverride.replacing(null, 2.0, null));
    assertThat(replaced.enabled()).isTrue();
    assertThat(replaced.weight()).isEqualTo(2.0);
    assertThat(replaced.metadata()).isEqualTo(Map.of("zone", "a"));
  }

  @Test
  void anOverrideOutlivesReRegistrationAndIsDroppedOnceItsInstanceIsGoneLongEnough() {
    String id = "127.0.0.1#1#DEFAULT";
    registry.register(app, orders, true, instance(1));
    registry.overrideInstance(operator, orders, id, InstanceOverride.replacing(false, null, null));
    registry.release(app);

    clock.advance(Duration.ofMinutes(9));
    registry.cleanUp();
    registry.register(app, orders, true, instance(1));
    assertThat(only(orders).enabled()).isFalse();

    registry.release(app);
    clock.advance(Duration.ofMinutes(10));
    registry.cleanUp();
    registry.register(app, orders, true, instance(1));
    assertThat(only(orders).enabled()).isTrue();
  }

  @Test
  void overridingAnInstanceThatDoesNotExistIsNotFoundAndBadValuesAreInvalid() {
    assertThat(failureOf(() -> registry.overrideInstance(operator, orders, "127.0.0.1#1#DEFAULT",
        InstanceOverride.replacing(false, null, null)))).isEqualTo(Failure.NOT_FOUND);
    assertThatThrownBy(() -> InstanceOverride.replacing(null, -1.0, null)).hasMessage("weight must be between 0 and 10000");
  }

  @Test
  void aBatchMakesTheConnectionsInstancesInTheServiceExactlyTheBatch() {
    registry.register(app, orders, true, instance(1));
    registry.register(app, orders, true, instance(2));
    registry.register(app, ServiceKey.of(null, null, "other"), true, instance(9));
    registry.takeEvents();

    Outcome.BatchRegistered result = registry.batchRegister(app, orders, List.of(instance(2), instance(3)));

    assertThat(result.instanceIds()).containsExactly("127.0.0.1#2#DEFAULT", "127.0.0.1#3#DEFAULT");
    assertThat(registry.view(orders, ViewFilter.ALL).instances()).extracting(InstanceView::port)
        .containsExactlyInAnyOrder(2, 3);
    assertThat(registry.view(ServiceKey.of(null, null, "other"), ViewFilter.ALL).instances()).hasSize(1);
    assertThat(registry.takeEvents()).extracting(e -> e.getClass().getSimpleName())
        .containsExactly("InstanceRemoved", "InstanceUpserted");
    assertThat(result.revision()).isEqualTo(registry.revision());
  }

  @Test
  void aSharedOwnersBatchAddsAndUpdatesButRemovesNothing() {
    Owner http = Owner.shared(-1, "http");
    registry.register(http, orders, true, instance(1)); // another HTTP caller's
    registry.takeEvents();

    Outcome.BatchRegistered result = registry.batchRegister(http, orders, List.of(instance(2), instance(3)));

    assertThat(result.instanceIds()).containsExactly("127.0.0.1#2#DEFAULT", "127.0.0.1#3#DEFAULT");
    assertThat(registry.view(orders, ViewFilter.ALL).instances()).extracting(InstanceView::port)
        .containsExactlyInAnyOrder(1, 2, 3);
    assertThat(registry.batchRegister(http, orders, List.of()).instanceIds()).isEmpty();
    assertThat(registry.view(orders, ViewFilter.ALL).instances()).hasSize(3);
  }

  @Test
  void oneInvalidOrRepeatedInstanceRefusesTheWholeBatchAndPersistentServicesTakeNone() {
    registry.register(app, orders, true, instance(1));
    registry.takeEvents();

    InstanceSpec badTimings = InstanceSpec.of("instances[1]", "127.0.0.1", 2, null, null, null,
        Map.of("preserved.heart.beat.interval", "0"));
    assertThatThrownBy(() -> registry.batchRegister(app, orders, List.of(instance(3), badTimings)))
        .hasMessageContaining("instances[1]").hasMessageContaining("preserved.heart.beat.interval");
    assertThatThrownBy(() -> registry.batchRegister(app, orders, List.of(instance(3), instance(3))))
        .hasMessageContaining("instances[1] repeats");
    assertThat(registry.takeEvents()).isEmpty();
    assertThat(registry.view(orders, ViewFilter.ALL).instances()).extracting(InstanceView::port).containsExactly(1);

    ServiceKey db = ServiceKey.of(null, null, "db");
    registry.register(app, db, false, instance(5432));
    assertThat(failureOf(() -> registry.batchRegister(app, db, List.of(instance(1)))))
        .isEqualTo(Failure.SERVICE_TYPE_MISMATCH);
  }

  @Test
  void anEmptyBatchForAServiceThatDoesNotExistChangesNothing() {
    long revision = registry.revision();

    Outcome.BatchRegistered result = registry.batchRegister(app, orders, List.of());

    assertThat(result.instanceIds()).isEmpty();
    assertThat(result.revision()).isEqualTo(revision);
    assertThat(registry.exists(orders)).isFalse();
    assertThat(registry.serviceCount()).isZero();
    assertThat(registry.takeEvents()).isEmpty();
    assertThat(registry.takeDurableChanges()).isEmpty();
  }

  @Test
  void anEmptyBatchThatEmptiesAServiceSchedulesItsCleanup() {
    registry.register(app, orders, true, instance(1));
    registry.takeEvents();

    registry.batchRegister(app, orders, List.of());
    assertThat(registry.takeEvents()).singleElement().isInstanceOf(InstanceRemoved.class);

    clock.advance(LifecycleConfig.DEFAULTS.emptyServiceCleanup());
    assertThat(registry.cleanUp()).isEqualTo(1);
    assertThat(registry.exists(orders)).isFalse();
  }

  @Test
  void aServiceCreatedByRegistrationIsCleanedUpAfterBeingEmptyForAMinute() {
    registry.register(app, orders, true, instance(1));
    registry.release(app);
    registry.takeEvents();

    clock.advance(Duration.ofSeconds(59));
    assertThat(registry.cleanUp()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(registry.cleanUp()).isEqualTo(1);

    assertThat(registry.exists(orders)).isFalse();
    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(ServiceDeleted.class,
        e -> assertThat(e.cause()).isEqualTo(ChangeCause.CLEANUP));
  }

  @Test
  void aServiceThatGetsAnInstanceAgainOrWasCreatedByAnOperatorStays() {
    registry.register(app, orders, true, instance(1));
    registry.release(app);
    clock.advance(Duration.ofSeconds(30));
    registry.register(app, orders, true, instance(1));
    registry.release(app);
    clock.advance(Duration.ofSeconds(40));
    assertThat(registry.cleanUp()).isZero();

    ServiceKey defined = ServiceKey.of(null, null, "defined");
    registry.createService(operator, defined, true, 0.0, Map.of());
    registry.register(app, defined, true, instance(1));
    registry.release(app);
    clock.advance(Duration.ofHours(1));
    registry.cleanUp();
    assertThat(registry.exists(defined)).isTrue();
    assertThat(registry.exists(orders)).isFalse();
  }

  @Test
  void serviceAdministrationRefusesWhatTheContractRefuses() {
    registry.createService(operator, orders, false, 0.5, Map.of("team", "core"));

    assertThat(failureOf(() -> registry.createService(operator, orders, false, 0, Map.of())))
        .isEqualTo(Failure.ALREADY_EXISTS);
    assertThat(failureOf(() -> registry.updateService(operator, orders, true, null, null)))
        .isEqualTo(Failure.INVALID_PARAM);
    assertThat(failureOf(() -> registry.updateService(operator, orders, null, 1.5, null)))
        .isEqualTo(Failure.INVALID_PARAM);
    assertThat(registry.service(ServiceKey.of(null, null, "nope"))).isEmpty(); // the edge answers NOT_FOUND
    registry.register(app, orders, false, instance(5432));
    assertThat(failureOf(() -> registry.deleteService(operator, orders))).isEqualTo(Failure.SERVICE_NOT_EMPTY);

    ServiceDefinition updated = registry.updateService(operator, orders, null, 0.25, null);
    assertThat(updated.protectThreshold()).isEqualTo(0.25);
    assertThat(updated.metadata()).containsEntry("team", "core");
    assertThat(updated.clusters()).containsExactly("DEFAULT");
    assertThat(updated.instanceCount()).isEqualTo(1);
  }

  @Test
  void listingFiltersByNamespaceGroupAndPrefixSortedByGroupThenName() {
    registry.register(app, ServiceKey.of(null, "b", "orders-api"), true, instance(1));
    registry.register(app, ServiceKey.of(null, "a", "orders-db"), true, instance(2));
    registry.register(app, ServiceKey.of(null, "a", "billing"), true, instance(3));
    registry.register(app, ServiceKey.of("prod", "a", "orders-x"), true, instance(4));

    assertThat(registry.list("public", null, "orders")).extracting(s -> s.service().toString())
        .containsExactly("public/a/orders-db", "public/b/orders-api");
    assertThat(registry.list("public", "a", null)).hasSize(2);
    assertThat(registry.list("prod", null, null)).singleElement()
        .satisfies(s -> assertThat(s.instanceCount()).isEqualTo(1));
  }

  /** Seconds of virtual time: these owners heartbeat every 5 s, expiry runs every second. */
  private void runFor(int seconds, Owner... heartbeating) {
    for (int second = 1; second <= seconds; second++) {
      clock.advance(Duration.ofSeconds(1));
      if (second % 5 == 0) {
        for (Owner owner : heartbeating) {
          registry.heartbeatAll(owner);
        }
      }
      registry.expire();
    }
  }

  @Test
  void whenMostHeartbeatsStopTheRegistryPreservesInstancesAndResumesWhenTheyRecover() {
    Owner[] owners = new Owner[100];
    for (int i = 0; i < 100; i++) {
      owners[i] = new Owner(100 + i, "app-" + i);
      registry.register(owners[i], orders, true, instance(i + 1));
    }
    runFor(60, owners);
    assertThat(registry.selfPreserving()).isFalse();

    // A partition: only 10 of the 100 keep heartbeating, for five minutes.
    runFor(300, java.util.Arrays.copyOf(owners, 10));
    assertThat(registry.selfPreserving()).isTrue();
    assertThat(registry.view(orders, ViewFilter.ALL).instances()).hasSize(100);

    // The partition heals.
    runFor(60, owners);
    assertThat(registry.selfPreserving()).isFalse();
  }

  @Test
  void aStallOfTheServerIsNotCountedAsMissedHeartbeats() {
    Owner[] owners = new Owner[100];
    for (int i = 0; i < 100; i++) {
      owners[i] = new Owner(100 + i, "app-" + i);
      registry.register(owners[i], orders, true, instance(i + 1));
    }
    runFor(60, owners);

    // The server does not run for 50 s of a 60 s window; then the heartbeats that waited are read.
    clock.advance(Duration.ofSeconds(50));
    registry.stalled(50_000);
    for (Owner owner : owners) {
      registry.heartbeatAll(owner);
    }
    registry.expire();

    assertThat(registry.selfPreserving()).as("the stall is not a partition").isFalse();
    assertThat(registry.view(orders, ViewFilter.ALL).instances()).hasSize(100)
        .allSatisfy(i -> assertThat(i.healthy()).isTrue());
  }

  @Test
  void aSmallFleetNeverEntersSelfPreservation() {
    Owner quiet = new Owner(3, "quiet");
    for (int port = 1; port <= 9; port++) {
      registry.register(port <= 7 ? quiet : app, orders, true, instance(port));
    }
    runFor(60, app);
    // Seven of nine silent is far below 85 % of the expected heartbeats, but in a fleet this small
    // a partition cannot be told from crashes: the silent ones expire.
    assertThat(registry.selfPreserving()).isFalse();
    assertThat(registry.view(orders, ViewFilter.ALL).instances()).hasSize(2);
  }

  @Test
  void aMassExpiryGoesInRandomOrderAtABoundedRate() {
    Registry budgeted = new Registry(clock, new RegistryConfig(HeartbeatTimings.DEFAULTS, 10_000, 90),
        new LifecycleConfig(Duration.ofSeconds(60), Duration.ofMinutes(10), false, Duration.ofSeconds(60), 0.85),
        new Random(3));
    for (String name : List.of("a", "b", "c")) {
      for (int port = 1; port <= 1_000; port++) {
        budgeted.register(app, ServiceKey.of(null, null, name), true, instance(port));
      }
    }
    budgeted.takeEvents();
    clock.advance(Duration.ofSeconds(31));

    assertThat(budgeted.expire()).isEqualTo(90);

    Map<String, Long> removedPerService = budgeted.takeEvents().stream()
        .filter(e -> e instanceof InstanceRemoved)
        .collect(Collectors.groupingBy(e -> e.service().service(), Collectors.counting()));
    assertThat(removedPerService.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(90);
    // Registered a, then b, then c: in order, the first pass would take only from a.
    assertThat(removedPerService).containsKeys("a", "b", "c");
    assertThat(removedPerService.values()).allSatisfy(count -> assertThat(count).isGreaterThan(10));
  }
}
