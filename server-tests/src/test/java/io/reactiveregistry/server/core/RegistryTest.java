package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import io.reactiveregistry.server.core.Outcome.Registered;
import io.reactiveregistry.server.core.RegistryEvent.InstanceRemoved;
import io.reactiveregistry.server.core.RegistryEvent.InstanceUpserted;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every rule of the core, one test each, on virtual time. */
class RegistryTest {
  private final ManualClock clock = new ManualClock(1_000_000);
  private final Registry registry = new Registry(clock, RegistryConfig.DEFAULTS);
  private final Owner alice = new Owner(1, "alice@127.0.0.1:1");
  private final Owner bob = new Owner(2, "bob@127.0.0.1:2");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");
  private final ServiceKey billing = ServiceKey.of("prod", "payments", "billing");

  private static InstanceSpec instance(String ip, int port) {
    return InstanceSpec.of("instance", ip, port, null, null, null, null);
  }

  private static InstanceSpec instance(String ip, int port, Map<String, String> metadata) {
    return InstanceSpec.of("instance", ip, port, null, null, null, metadata);
  }

  private List<InstanceView> instancesOf(ServiceKey key) {
    return registry.view(key, ViewFilter.ALL).instances();
  }

  @Test
  void registrationFillsDefaultsAndNamesTheInstanceIpPortCluster() {
    Registered registered = registry.register(alice, orders, true, instance("127.0.0.5", 8080));

    assertThat(registered.instanceId()).isEqualTo("127.0.0.5#8080#DEFAULT");
    assertThat(registered.timings()).isEqualTo(HeartbeatTimings.DEFAULTS);
    assertThat(orders).isEqualTo(new ServiceKey("public", "DEFAULT_GROUP", "orders"));
    InstanceView view = instancesOf(orders).get(0);
    assertThat(view).isEqualTo(new InstanceView("127.0.0.5#8080#DEFAULT", "127.0.0.5", 8080, "DEFAULT", 1.0, true,
        true, true, Map.of()));
  }

  @Test
  void anOperatorSeesEachInstancesOwnerLastHeartbeatAndOverride() {
    Owner operator = new Owner(9, "ops@127.0.0.1:9");
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(bob, orders, true, instance("127.0.0.6", 8080));
    clock.advanceMillis(2_000);
    registry.heartbeat(alice, orders, instance("127.0.0.5", 8080));
    registry.patchInstance(operator, orders, "127.0.0.6#8080#DEFAULT", false, null, Map.of("zone", "b"));

    assertThat(registry.instanceRecords(orders)).containsExactly(
        new Results.InstanceRecord(instancesOf(orders).get(0), "alice@127.0.0.1:1", 1, 1_002_000L, null, null),
        new Results.InstanceRecord(instancesOf(orders).get(1), "bob@127.0.0.1:2", 2, 1_000_000L,
            new InstanceOverride(false, null, Map.of("zone", "b")), null));
    assertThat(registry.instanceRecords(billing)).isEmpty();
  }

  @Test
  void theListingSaysWhenAHealthyOnlyViewIsProtecting() {
    Owner operator = new Owner(9, "ops@127.0.0.1:9");
    registry.createService(operator, orders, true, 0.6, Map.of());
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(bob, orders, true, instance("127.0.0.6", 8080));
    assertThat(registry.list("public", null, null)).singleElement()
        .satisfies(summary -> assertThat(summary.protectionTriggered()).isFalse());

    // Bob falls silent: one healthy of two is below the threshold of 0.6.
    clock.advance(Duration.ofMillis(HeartbeatTimings.DEFAULTS.timeoutMs() - 1_000));
    registry.heartbeat(alice, orders, instance("127.0.0.5", 8080));
    clock.advance(Duration.ofMillis(1_000));
    registry.expire();

    assertThat(registry.list("public", null, null)).singleElement().satisfies(summary -> {
      assertThat(summary.healthyCount()).isEqualTo(1);
      assertThat(summary.protectionTriggered()).isTrue();
    });
  }

  @Test
  void firstRegistrationFixesTheServiceTypeAndAMismatchIsRefusedNamingIt() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    long revision = registry.revision();
    registry.takeEvents();

    assertThatThrownBy(() -> registry.register(alice, orders, false, instance("127.0.0.6", 8080)))
        .isInstanceOfSatisfying(RegistryException.class,
            e -> assertThat(e.failure()).isEqualTo(Failure.SERVICE_TYPE_MISMATCH))
        .hasMessageContaining("is ephemeral");
    assertThat(registry.revision()).isEqualTo(revision);
    assertThat(registry.takeEvents()).isEmpty();
    assertThat(instancesOf(orders)).hasSize(1);
  }

  @Test
  void everyChangeTakesTheNextRevisionOfOneServerWideCounter() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(alice, billing, true, instance("127.0.0.6", 8080));
    registry.register(alice, orders, true, instance("127.0.0.7", 8080));

    assertThat(registry.takeEvents()).extracting(RegistryEvent::revision).containsExactly(1L, 2L, 3L);
    assertThat(registry.revision()).isEqualTo(3);
  }

  @Test
  void identicalReRegistrationEmitsNothingAndKeepsTheRevision() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.takeEvents();

    Registered again = registry.register(alice, orders, true, instance("127.0.0.5", 8080));

    assertThat(registry.takeEvents()).isEmpty();
    assertThat(again.revision()).isEqualTo(1);
  }

  @Test
  void changedReRegistrationUpdatesTheInstanceWithANewRevision() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.takeEvents();

    registry.register(alice, orders, true, instance("127.0.0.5", 8080, Map.of("zone", "a")));

    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceUpserted.class, e -> {
      assertThat(e.revision()).isEqualTo(2);
      assertThat(e.instance().metadata()).containsEntry("zone", "a");
    });
  }

  @Test
  void registrationFromAnotherConnectionTakesTheInstanceOver() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(bob, orders, true, instance("127.0.0.5", 8080));

    assertThat(registry.release(alice)).isZero();
    assertThat(instancesOf(orders)).hasSize(1);
    assertThat(registry.ownedBy(bob)).isEqualTo(1);
    assertThat(registry.release(bob)).isEqualTo(1);
    assertThat(instancesOf(orders)).isEmpty();
  }

  @Test
  void onlyTheOwningConnectionMayDeregisterAnEphemeralInstance() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.takeEvents();

    assertThatThrownBy(() -> registry.deregister(bob, orders, "127.0.0.5", 8080, "DEFAULT"))
        .isInstanceOfSatisfying(RegistryException.class, e -> assertThat(e.failure()).isEqualTo(Failure.FORBIDDEN));
    assertThat(registry.takeEvents()).isEmpty();

    assertThat(registry.deregister(alice, orders, "127.0.0.5", 8080, "DEFAULT").removed()).isTrue();
    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceRemoved.class,
        e -> assertThat(e.cause()).isEqualTo(ChangeCause.DEREGISTER));
  }

  @Test
  void deregisteringWhatDoesNotExistSucceedsWithRemovedFalse() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.takeEvents();

    assertThat(registry.deregister(alice, orders, "127.0.0.9", 8080, "DEFAULT"))
        .isEqualTo(new Outcome.Deregistered(false, 1));
    assertThat(registry.deregister(alice, billing, "127.0.0.9", 8080, "DEFAULT").removed()).isFalse();
    assertThat(registry.takeEvents()).isEmpty();
  }

  @Test
  void releasingAConnectionRemovesEachOfItsInstancesWithItsOwnRevision() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(alice, billing, true, instance("127.0.0.5", 8080));
    registry.register(bob, orders, true, instance("127.0.0.6", 8080));
    registry.takeEvents();

    assertThat(registry.release(alice)).isEqualTo(2);

    assertThat(registry.takeEvents())
        .allSatisfy(e -> assertThat(e.cause()).isEqualTo(ChangeCause.CONNECTION_CLOSED))
        .extracting(RegistryEvent::revision).containsExactly(4L, 5L);
    assertThat(instancesOf(orders)).extracting(InstanceView::ip).containsExactly("127.0.0.6");
  }

  @Test
  void aServiceStaysEmptyAfterItsLastInstanceLeaves() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.release(alice);

    assertThat(registry.exists(orders)).isTrue();
    assertThat(registry.view(orders, ViewFilter.ALL).exists()).isTrue();
  }

  @Test
  void queryOfAnUnknownServiceIsEmptyAtTheCurrentRevision() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));

    ServiceView view = registry.view(billing, ViewFilter.ALL);

    assertThat(view.exists()).isFalse();
    assertThat(view.instances()).isEmpty();
    assertThat(view.revision()).isEqualTo(1);
  }

  @Test
  void anInstanceTurnsUnhealthyExactlyAtItsHeartbeatTimeout() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.takeEvents();

    clock.advanceMillis(14_999);
    registry.expire();
    assertThat(registry.takeEvents()).isEmpty();

    clock.advanceMillis(1);
    registry.expire();
    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceUpserted.class, e -> {
      assertThat(e.instance().healthy()).isFalse();
      assertThat(e.cause()).isEqualTo(ChangeCause.HEARTBEAT_TIMEOUT);
    });
  }

  @Test
  void instancesWhoseDeadlinesAreMillisecondsApartEachTurnUnhealthyAtItsOwn() {
    for (int port = 1; port <= 100; port++) {
      registry.register(alice, orders, true, instance("127.0.0.5", port));
      clock.advanceMillis(1);
    }
    registry.takeEvents();
    clock.advanceMillis(15_000 - 100); // the first one's deadline

    for (int port = 1; port <= 100; port++) {
      registry.expire();
      int expected = port;
      assertThat(registry.takeEvents()).as("at the deadline of the instance on port %d", port)
          .singleElement().isInstanceOfSatisfying(InstanceUpserted.class, e -> {
            assertThat(e.instance().port()).isEqualTo(expected);
            assertThat(e.instance().healthy()).isFalse();
          });
      clock.advanceMillis(1);
    }
    registry.expire();
    assertThat(registry.takeEvents()).isEmpty();
  }

  @Test
  void anInstanceIsRemovedExactlyAtItsDeleteTimeout() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    clock.advanceMillis(15_000);
    registry.expire();
    registry.takeEvents();

    clock.advanceMillis(14_999);
    registry.expire();
    assertThat(registry.takeEvents()).isEmpty();

    clock.advanceMillis(1);
    registry.expire();
    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceRemoved.class,
        e -> assertThat(e.cause()).isEqualTo(ChangeCause.HEARTBEAT_TIMEOUT));
    assertThat(registry.ownedBy(alice)).isZero();
  }

  @Test
  void aHeartbeatPostponesEveryDeadline() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    for (int i = 0; i < 10; i++) {
      clock.advanceMillis(5_000);
      assertThat(registry.heartbeat(alice, orders, instance("127.0.0.5", 8080))).isEqualTo(HeartbeatOutcome.REFRESHED);
      registry.expire();
    }
    registry.takeEvents();
    clock.advanceMillis(14_999);
    registry.expire();
    assertThat(registry.takeEvents()).isEmpty();
    assertThat(instancesOf(orders)).singleElement().satisfies(i -> assertThat(i.healthy()).isTrue());
  }

  @Test
  void aHeartbeatRestoresAnUnhealthyInstance() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    clock.advanceMillis(20_000);
    registry.expire();
    registry.takeEvents();

    registry.heartbeat(alice, orders, instance("127.0.0.5", 8080));

    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceUpserted.class, e -> {
      assertThat(e.instance().healthy()).isTrue();
      assertThat(e.cause()).isEqualTo(ChangeCause.HEARTBEAT);
    });
    clock.advanceMillis(14_999);
    registry.expire();
    assertThat(registry.takeEvents()).isEmpty();
  }

  @Test
  void aHeartbeatThatChangesNoHealthEmitsNothing() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.takeEvents();

    registry.heartbeat(alice, orders, instance("127.0.0.5", 8080));
    registry.heartbeatAll(alice);

    assertThat(registry.takeEvents()).isEmpty();
  }

  @Test
  void metadataOverridesTheTimingsOfOneInstance() {
    Registered registered = registry.register(alice, orders, true, instance("127.0.0.5", 8080, Map.of(
        "preserved.heart.beat.interval", "1000", "preserved.heart.beat.timeout", "3000",
        "preserved.ip.delete.timeout", "6000")));
    registry.takeEvents();

    assertThat(registered.timings()).isEqualTo(new HeartbeatTimings(1_000, 3_000, 6_000));
    clock.advanceMillis(3_000);
    registry.expire();
    assertThat(registry.takeEvents()).singleElement().isInstanceOf(InstanceUpserted.class);
    clock.advanceMillis(3_000);
    registry.expire();
    assertThat(registry.takeEvents()).singleElement().isInstanceOf(InstanceRemoved.class);
  }

  @Test
  void shorterTimingsOnReRegistrationTakeEffectAtOnce() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(alice, orders, true, instance("127.0.0.5", 8080, Map.of(
        "preserved.heart.beat.interval", "100", "preserved.heart.beat.timeout", "200",
        "preserved.ip.delete.timeout", "400")));
    registry.takeEvents();

    clock.advanceMillis(400);
    registry.expire();

    assertThat(instancesOf(orders)).isEmpty();
  }

  @ParameterizedTest(name = "{0}={1} is refused")
  @CsvSource({
      "preserved.heart.beat.interval, abc",
      "preserved.heart.beat.interval, 0",
      "preserved.heart.beat.interval, -5",
      "preserved.heart.beat.interval, 1.5",
      "preserved.heart.beat.timeout, 10",
      "preserved.ip.delete.timeout, 10",
      "preserved.heart.beat.timeout, ''",
  })
  void invalidTimingMetadataIsRefusedNamingTheKey(String key, String value) {
    assertThatThrownBy(() -> registry.register(alice, orders, true, instance("127.0.0.5", 8080, Map.of(key, value))))
        .isInstanceOfSatisfying(RegistryException.class, e -> assertThat(e.failure()).isEqualTo(Failure.INVALID_PARAM))
        .hasMessageContaining(key);
    assertThat(registry.exists(orders)).isFalse();
  }

  @Test
  void aHeartbeatForAMissingInstanceRecreatesItUnderTheSendingConnection() {
    assertThat(registry.heartbeat(alice, orders, instance("127.0.0.5", 8080))).isEqualTo(HeartbeatOutcome.RECREATED);

    assertThat(instancesOf(orders)).hasSize(1);
    assertThat(registry.ownedBy(alice)).isEqualTo(1);
    assertThat(registry.takeEvents()).singleElement().isInstanceOf(InstanceUpserted.class);
  }

  @Test
  void aHeartbeatInFlightNeverUndoesTheSameConnectionsDeregistration() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.deregister(alice, orders, "127.0.0.5", 8080, "DEFAULT");

    assertThat(registry.heartbeat(alice, orders, instance("127.0.0.5", 8080)))
        .isEqualTo(HeartbeatOutcome.IGNORED_DEREGISTERED);
    assertThat(instancesOf(orders)).isEmpty();

    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.deregister(alice, orders, "127.0.0.5", 8080, "DEFAULT");
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.release(alice);
    assertThat(registry.heartbeat(bob, orders, instance("127.0.0.5", 8080))).isEqualTo(HeartbeatOutcome.RECREATED);
  }

  @Test
  void aHeartbeatForAnotherConnectionsInstanceNeitherRefreshesNorTakesItOver() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    clock.advanceMillis(10_000);

    assertThat(registry.heartbeat(bob, orders, instance("127.0.0.5", 8080)))
        .isEqualTo(HeartbeatOutcome.IGNORED_NOT_OWNER);
    clock.advanceMillis(5_000);
    registry.expire();

    assertThat(registry.ownedBy(bob)).isZero();
    assertThat(instancesOf(orders)).singleElement().satisfies(i -> assertThat(i.healthy()).isFalse());
  }

  @Test
  void anEmptyHeartbeatRefreshesEveryInstanceTheConnectionOwns() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(alice, billing, true, instance("127.0.0.5", 8080));
    registry.register(bob, orders, true, instance("127.0.0.6", 8080));
    clock.advanceMillis(10_000);

    assertThat(registry.heartbeatAll(alice)).isEqualTo(2);
    clock.advanceMillis(5_000);
    registry.expire();

    assertThat(instancesOf(orders)).extracting(InstanceView::ip, InstanceView::healthy)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("127.0.0.5", true),
            org.assertj.core.groups.Tuple.tuple("127.0.0.6", false));
  }

  @Test
  void persistentInstancesIgnoreHeartbeatsAndOutliveTheirConnection() {
    registry.register(alice, orders, false, instance("127.0.0.5", 5432));
    registry.takeEvents();

    assertThat(registry.heartbeat(alice, orders, instance("127.0.0.5", 5432)))
        .isEqualTo(HeartbeatOutcome.IGNORED_PERSISTENT);
    assertThat(registry.release(alice)).isZero();
    clock.advance(Duration.ofHours(1));
    registry.expire();

    assertThat(registry.takeEvents()).isEmpty();
    assertThat(instancesOf(orders)).singleElement().satisfies(i -> assertThat(i.ephemeral()).isFalse());
  }

  @Test
  void aStallOfTheServerCostsNoInstanceItsRegistration() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    clock.advance(Duration.ofSeconds(4));
    registry.expire();
    registry.takeEvents();

    // The server did not run for 40 s: past both timeouts of an instance heartbeated 4 s before.
    clock.advance(Duration.ofSeconds(40));
    assertThat(registry.stalled(40_000)).isEqualTo(1);
    registry.expire();

    assertThat(registry.takeEvents()).isEmpty();
    assertThat(instancesOf(orders)).singleElement().satisfies(i -> assertThat(i.healthy()).isTrue());
    // Its deadlines moved on by the stall, no further: unhealthy 15 s after its (moved) last heartbeat.
    clock.advance(Duration.ofSeconds(11));
    registry.expire();
    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceUpserted.class,
        e -> assertThat(e.instance().healthy()).isFalse());
  }

  @Test
  void reRegisteringAnUnhealthyPersistentInstanceKeepsItUnhealthy() {
    ServiceKey db = ServiceKey.of(null, null, "db");
    registry.register(alice, db, false, instance("127.0.0.9", 5432));
    registry.healthChecked(db, "127.0.0.9#5432#DEFAULT", new HealthCheck(0, false, 1, "test"));
    registry.takeEvents();

    registry.register(bob, db, false, instance("127.0.0.9", 5432));
    assertThat(registry.takeEvents()).as("an identical registration changes nothing").isEmpty();
    assertThat(instancesOf(db)).singleElement().satisfies(view -> assertThat(view.healthy()).isFalse());

    registry.register(bob, db, false, instance("127.0.0.9", 5432, Map.of("zone", "b")));
    assertThat(registry.takeEvents()).singleElement().isInstanceOfSatisfying(InstanceUpserted.class,
        e -> assertThat(e.instance().healthy()).as("health belongs to the checks").isFalse());
  }

  @Test
  void anyConnectionMayDeregisterAPersistentInstance() {
    registry.register(alice, orders, false, instance("127.0.0.5", 5432));

    assertThat(registry.deregister(bob, orders, "127.0.0.5", 5432, "DEFAULT").removed()).isTrue();
  }

  @Test
  void aConnectionPastItsInstanceLimitIsRefusedAndNothingChanges() {
    Registry small = new Registry(clock, new RegistryConfig(HeartbeatTimings.DEFAULTS, 2, 100));
    small.register(alice, orders, true, instance("127.0.0.1", 1));
    small.register(alice, orders, true, instance("127.0.0.1", 2));
    small.takeEvents();

    assertThatThrownBy(() -> small.register(alice, orders, true, instance("127.0.0.1", 3)))
        .isInstanceOfSatisfying(RegistryException.class,
            e -> assertThat(e.failure()).isEqualTo(Failure.LIMIT_EXCEEDED));
    assertThat(small.takeEvents()).isEmpty();
    // Updating an instance it already owns is not a new one.
    small.register(alice, orders, true, instance("127.0.0.1", 2));
    small.register(bob, orders, true, instance("127.0.0.1", 3));
    assertThat(small.view(orders, ViewFilter.ALL).instances()).hasSize(3);
  }

  @Test
  void anExpiryPassLooksAtNoMoreThanItsBudget() {
    Registry budgeted = new Registry(clock, new RegistryConfig(HeartbeatTimings.DEFAULTS, 10_000, 100));
    for (int port = 1; port <= 250; port++) {
      budgeted.register(alice, orders, true, instance("127.0.0.1", port));
    }
    clock.advanceMillis(30_000);

    assertThat(budgeted.expire()).isEqualTo(100);
    assertThat(budgeted.expire()).isEqualTo(100);
    assertThat(budgeted.expire()).isEqualTo(50);
    assertThat(budgeted.view(orders, ViewFilter.ALL).instances()).isEmpty();
  }

  @Test
  void expiryLooksOnlyAtInstancesWhoseDeadlineHasCome() {
    for (int port = 1; port <= 1_000; port++) {
      registry.register(alice, orders, true, instance("127.0.0.1", port));
    }
    clock.advanceMillis(5_000);
    registry.heartbeatAll(alice);
    clock.advanceMillis(5_000);

    assertThat(registry.expire()).isZero();
  }

  @Test
  void aRenewalRefreshesItsInstanceAndNeverRecreatesOne() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    String id = "127.0.0.5#8080#DEFAULT";
    clock.advance(Duration.ofMillis(HeartbeatTimings.DEFAULTS.timeoutMs() - 1_000));
    assertThat(registry.apply(new Command.Renew(alice, orders, id))).isEqualTo(HeartbeatOutcome.REFRESHED);
    clock.advance(Duration.ofMillis(2_000)); // past the timeout since the registration, not since the renewal
    registry.expire();
    assertThat(instancesOf(orders)).singleElement().extracting(InstanceView::healthy).isEqualTo(true);

    assertThat(registry.apply(new Command.Renew(bob, orders, id))).isEqualTo(HeartbeatOutcome.IGNORED_NOT_OWNER);
    registry.takeEvents();
    assertThat(registry.apply(new Command.Renew(alice, orders, "127.0.0.9#8080#DEFAULT")))
        .isEqualTo(HeartbeatOutcome.IGNORED_UNKNOWN);
    assertThat(registry.apply(new Command.Renew(alice, billing, id))).isEqualTo(HeartbeatOutcome.IGNORED_UNKNOWN);
    assertThat(instancesOf(orders)).hasSize(1);
    assertThat(registry.exists(billing)).isFalse();
    assertThat(registry.takeEvents()).isEmpty();
  }

  @Test
  void restoringEnabledLiftsOnlyThatAndTheNamedMetadataKeys() {
    Owner operator = new Owner(9, "ops@127.0.0.1:9");
    String id = "127.0.0.5#8080#DEFAULT";
    registry.register(alice, orders, true, instance("127.0.0.5", 8080, Map.of("zone", "a")));
    registry.patchInstance(operator, orders, id, false, 3.0, Map.of("status", "OUT", "zone", "b"));
    assertThat(instancesOf(orders)).singleElement().satisfies(view -> {
      assertThat(view.enabled()).isFalse();
      assertThat(view.metadata()).containsEntry("status", "OUT").containsEntry("zone", "b");
    });

    registry.apply(new Command.RestoreEnabled(operator, orders, id, List.of("status")));

    assertThat(instancesOf(orders)).singleElement().satisfies(view -> {
      assertThat(view.enabled()).isTrue();
      assertThat(view.weight()).isEqualTo(3.0);
      assertThat(view.metadata()).doesNotContainKey("status").containsEntry("zone", "b");
    });
  }
}
