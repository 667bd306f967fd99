package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.server.core.DurableChange.InstanceSaved;
import io.reactiveregistry.server.core.DurableChange.Kind;
import io.reactiveregistry.server.core.DurableChange.OverrideSaved;
import io.reactiveregistry.server.core.DurableChange.Removed;
import io.reactiveregistry.server.core.DurableChange.ServiceSaved;
import io.reactiveregistry.server.core.DurableChange.Subject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What the core records for storage: exactly the changes to durable state, in decision order,
 * and enough of them that a registry rebuilt from them shows what the original showed.
 */
class DurableChangesTest {
  private final ManualClock clock = new ManualClock(1_000_000);
  private final Registry registry = newRegistry();
  private final Owner alice = new Owner(1, "alice@127.0.0.1:1");
  private final Owner admin = new Owner(9, "admin@127.0.0.1:9");
  private final ServiceKey db = ServiceKey.of(null, null, "db");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");
  /** What storage would hold: the latest value of each subject. */
  private final Map<Subject, DurableChange> stored = new LinkedHashMap<>();

  private Registry newRegistry() {
    return new Registry(clock, RegistryConfig.DEFAULTS, LifecycleConfig.DEFAULTS, new Random(1));
  }

  private static InstanceSpec instance(String ip, int port) {
    return InstanceSpec.of("instance", ip, port, null, null, null, null);
  }

  private List<DurableChange> taken() {
    List<DurableChange> changes = registry.takeDurableChanges();
    for (DurableChange change : changes) {
      if (change.removal()) {
        stored.remove(change.subject());
      } else {
        stored.put(change.subject(), change);
      }
    }
    return changes;
  }

  @Test
  void aPersistentRegistrationSavesItsServiceThenItsInstance() {
    registry.register(alice, db, false, instance("127.0.0.9", 5432));

    assertThat(taken()).containsExactly(
        new ServiceSaved(db, false, 0.0, Map.of(), false),
        new InstanceSaved(db, instance("127.0.0.9", 5432)));
  }

  @Test
  void anIdenticalReRegistrationSavesNothingAndAChangedOneSavesTheNewInstance() {
    registry.register(alice, db, false, instance("127.0.0.9", 5432));
    taken();

    registry.register(alice, db, false, instance("127.0.0.9", 5432));
    assertThat(taken()).isEmpty();

    InstanceSpec heavier = InstanceSpec.of("instance", "127.0.0.9", 5432, null, 2.0, null, null);
    registry.register(alice, db, false, heavier);
    assertThat(taken()).containsExactly(new InstanceSaved(db, heavier));
  }

  @Test
  void ephemeralInstancesAreNeverRecorded() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.heartbeatAll(alice);
    registry.batchRegister(alice, orders, List.of(instance("127.0.0.6", 8080)));
    registry.deregister(alice, orders, "127.0.0.6", 8080, "DEFAULT");
    registry.register(alice, orders, true, instance("127.0.0.7", 8080));
    registry.release(alice);
    clock.advance(Duration.ofMinutes(2));
    registry.expire();
    registry.cleanUp();

    assertThat(taken()).isEmpty();
  }

  @Test
  void aRefusedCommandRecordsNothing() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));

    assertThatThrownBy(() -> registry.register(alice, orders, false, instance("127.0.0.6", 8080)))
        .isInstanceOf(RegistryException.class);
    assertThatThrownBy(() -> registry.createService(admin, orders, true, 0.0, Map.of()))
        .isInstanceOf(RegistryException.class);
    assertThat(taken()).isEmpty();
  }

  @Test
  void deregisteringAPersistentInstanceRemovesItAndCleanupLaterRemovesItsEmptyService() {
    registry.register(alice, db, false, instance("127.0.0.9", 5432));
    taken();

    registry.deregister(admin, db, "127.0.0.9", 5432, "DEFAULT");
    assertThat(taken()).containsExactly(new Removed(new Subject(Kind.INSTANCE, db, "127.0.0.9#5432#DEFAULT")));

    clock.advance(LifecycleConfig.DEFAULTS.emptyServiceCleanup());
    registry.cleanUp();
    assertThat(taken()).containsExactly(new Removed(new Subject(Kind.SERVICE, db, null)));
    assertThat(stored).isEmpty();
  }

  @Test
  void servicesAnOperatorDefinesAreSavedEvenWhenEphemeral() {
    registry.createService(admin, orders, true, 0.5, Map.of("team", "a"));
    assertThat(taken()).containsExactly(new ServiceSaved(orders, true, 0.5, Map.of("team", "a"), true));

    registry.updateService(admin, orders, null, 0.7, null);
    assertThat(taken()).containsExactly(new ServiceSaved(orders, true, 0.7, Map.of("team", "a"), true));

    registry.deleteService(admin, orders);
    assertThat(taken()).containsExactly(new Removed(new Subject(Kind.SERVICE, orders, null)));
  }

  @Test
  void updatingAServiceARegistrationCreatedMakesItDurable() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.updateService(admin, orders, null, null, null);

    assertThat(taken()).containsExactly(new ServiceSaved(orders, true, 0.0, Map.of(), true));
  }

  @Test
  void overridesOfEitherTypeAreSavedAndDroppedOnceTheirInstanceHasBeenGoneForTheRetention() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.patchInstance(admin, orders, "127.0.0.5#8080#DEFAULT", false, null, null);
    assertThat(taken()).containsExactly(
        new OverrideSaved(orders, "127.0.0.5#8080#DEFAULT", new InstanceOverride(false, null, null)));

    registry.patchInstance(admin, orders, "127.0.0.5#8080#DEFAULT", false, null, null);
    assertThat(taken()).as("the same override again").isEmpty();

    registry.release(alice);
    clock.advance(LifecycleConfig.DEFAULTS.overrideRetention());
    registry.cleanUp();
    assertThat(taken()).containsExactly(new Removed(new Subject(Kind.OVERRIDE, orders, "127.0.0.5#8080#DEFAULT")));
  }

  @Test
  void aRegistryRestoredFromTheRecordedChangesShowsTheSameDurableStateAndNothingEphemeral() {
    registry.createService(admin, orders, true, 0.5, Map.of("team", "a"));
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.register(alice, db, false, instance("127.0.0.9", 5432));
    registry.register(alice, db, false, instance("127.0.0.10", 5432));
    registry.register(alice, db, false, instance("127.0.0.11", 5432));
    registry.deregister(alice, db, "127.0.0.10", 5432, "DEFAULT");
    registry.overrideInstance(admin, db, "127.0.0.9#5432#DEFAULT", new InstanceOverride(null, 3.0, Map.of("k", "v")));
    registry.patchInstance(admin, orders, "127.0.0.5#8080#DEFAULT", false, null, null);
    taken();
    long revision = registry.revision();

    Registry restored = newRegistry();
    restored.restore(stored.values(), revision);

    assertThat(restored.view(db, ViewFilter.ALL)).isEqualTo(registry.view(db, ViewFilter.ALL));
    assertThat(restored.service(orders).orElseThrow().protectThreshold()).isEqualTo(0.5);
    assertThat(restored.service(orders).orElseThrow().metadata()).isEqualTo(Map.of("team", "a"));
    assertThat(restored.view(orders, ViewFilter.ALL).instances()).as("ephemeral instances are not restored").isEmpty();
    assertThat(restored.takeEvents()).isEmpty();
    assertThat(restored.takeDurableChanges()).isEmpty();

    // Revisions continue after the last durable change.
    restored.register(alice, orders, true, instance("127.0.0.5", 8080));
    assertThat(restored.revision()).isEqualTo(revision + 1);
    assertThat(restored.view(orders, ViewFilter.ALL).instances().get(0).enabled())
        .as("the override waits for its ephemeral instance to come back").isFalse();
  }

  @Test
  void restoredOverridesOfAbsentInstancesAndEmptyServicesAgeFromTheRestart() {
    registry.register(alice, orders, true, instance("127.0.0.5", 8080));
    registry.patchInstance(admin, orders, "127.0.0.5#8080#DEFAULT", false, null, null);
    registry.register(alice, db, false, instance("127.0.0.9", 5432));
    registry.deregister(alice, db, "127.0.0.9", 5432, "DEFAULT");
    taken();

    Registry restored = newRegistry();
    restored.restore(stored.values(), registry.revision());
    assertThat(restored.exists(db)).isTrue();

    clock.advance(LifecycleConfig.DEFAULTS.emptyServiceCleanup());
    restored.cleanUp();
    assertThat(restored.exists(db)).as("an empty service a registration created is cleaned up").isFalse();

    clock.advance(LifecycleConfig.DEFAULTS.overrideRetention());
    restored.cleanUp();
    assertThat(restored.takeDurableChanges()).contains(
        new Removed(new Subject(Kind.SERVICE, db, null)),
        new Removed(new Subject(Kind.OVERRIDE, orders, "127.0.0.5#8080#DEFAULT")));
  }
}
