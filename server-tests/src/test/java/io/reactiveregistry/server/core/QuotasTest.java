package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** Quotas: past one a command is refused with LIMIT_EXCEEDED naming it, and nothing changes. */
class QuotasTest {
  private final ManualClock clock = new ManualClock(1_000_000);
  /** 2 namespaces, 3 services (2 per namespace), 3 persistent instances (2 per namespace), 120 (100) metadata bytes. */
  private final Quotas quotas = new Quotas(2, 3, 2, 3, 2, 120, 100);
  private final Registry registry = new Registry(clock,
      new RegistryConfig(HeartbeatTimings.DEFAULTS, 10_000, 1_000, quotas));
  private final Owner app = new Owner(1, "app@127.0.0.1:1");

  private static ServiceKey service(String namespace, String name) {
    return ServiceKey.of(namespace, null, name);
  }

  private static InstanceSpec instance(int port, String metadataValue) {
    return InstanceSpec.of("instance", "127.0.0.5", port, null, null, null,
        metadataValue == null ? null : Map.of("k", metadataValue));
  }

  private void assertRefusedChangingNothing(ThrowingCallable command, String naming) {
    long revision = registry.revision();
    int services = registry.serviceCount();
    long bytes = registry.durableMetadataBytes();
    registry.takeEvents();
    registry.takeDurableChanges();
    assertThatThrownBy(command)
        .isInstanceOfSatisfying(RegistryException.class, e -> assertThat(e.failure()).isEqualTo(Failure.LIMIT_EXCEEDED))
        .hasMessageContaining(naming);
    assertThat(registry.revision()).isEqualTo(revision);
    assertThat(registry.serviceCount()).isEqualTo(services);
    assertThat(registry.durableMetadataBytes()).isEqualTo(bytes);
    assertThat(registry.takeEvents()).isEmpty();
    assertThat(registry.takeDurableChanges()).isEmpty();
  }

  @Test
  void servicesAreBoundedPerNamespaceAndInAllWhoeverCreatesThem() {
    registry.register(app, service("a", "one"), true, instance(1, null));
    registry.createService(app, service("a", "two"), false, 0, Map.of());
    assertRefusedChangingNothing(() -> registry.register(app, service("a", "three"), true, instance(1, null)),
        "namespace a holds its quota of 2 services (--max-services-per-namespace)");
    assertRefusedChangingNothing(() -> registry.batchRegister(app, service("a", "three"), List.of(instance(1, null))),
        "--max-services-per-namespace");
    assertRefusedChangingNothing(() -> registry.createService(app, service("a", "three"), true, 0, Map.of()),
        "--max-services-per-namespace");
    // A heartbeat that would re-create an instance creates no service past the quota either.
    assertThatThrownBy(() -> registry.heartbeat(app, service("a", "three"), instance(1, null)))
        .hasMessageContaining("--max-services-per-namespace");

    registry.register(app, service("b", "one"), true, instance(1, null));
    assertRefusedChangingNothing(() -> registry.register(app, service("b", "two"), true, instance(1, null)),
        "the registry holds its quota of 3 services (--max-services)");

    // Deleting one frees its place.
    registry.deleteService(app, service("a", "two"));
    registry.register(app, service("b", "two"), true, instance(1, null));
    assertThat(registry.serviceCount()).isEqualTo(3);
  }

  @Test
  void namespacesAreBoundedAndAnEmptiedNamespaceIsFreedByCleanup() {
    registry.register(app, service("a", "one"), true, instance(1, null));
    registry.register(app, service("b", "one"), true, instance(1, null));
    assertRefusedChangingNothing(() -> registry.register(app, service("c", "one"), true, instance(1, null)),
        "the registry holds its quota of 2 namespaces (--max-namespaces); namespace c would be one more");

    registry.release(app);
    clock.advance(LifecycleConfig.DEFAULTS.emptyServiceCleanup());
    registry.cleanUp();
    assertThat(registry.namespaceCount()).isZero();
    registry.register(app, service("c", "one"), true, instance(1, null));
  }

  @Test
  void persistentInstancesAreBoundedAndReRegisteringOneIsNotAnotherOne() {
    ServiceKey db = service("a", "db");
    registry.register(app, db, false, instance(1, null));
    registry.register(app, db, false, instance(2, null));
    assertRefusedChangingNothing(() -> registry.register(app, db, false, instance(3, null)),
        "namespace a holds its quota of 2 persistent instances (--max-persistent-instances-per-namespace)");
    registry.register(app, db, false, instance(2, "changed"));

    registry.register(app, service("b", "db"), false, instance(1, null));
    assertRefusedChangingNothing(() -> registry.register(app, service("b", "db"), false, instance(2, null)),
        "the registry holds its quota of 3 persistent instances (--max-persistent-instances)");

    registry.deregister(app, db, "127.0.0.5", 1, "DEFAULT");
    registry.register(app, service("b", "db"), false, instance(2, null));
  }

  @Test
  void durableMetadataBytesCountInstancesAndServiceDefinitionsAndAreFreedWithThem() {
    ServiceKey db = service("a", "db");
    registry.register(app, db, false, instance(1, "x".repeat(59))); // "k" + 59 = 60 bytes
    assertThat(registry.durableMetadataBytes()).isEqualTo(60);
    assertRefusedChangingNothing(() -> registry.register(app, db, false, instance(2, "x".repeat(59))),
        "durable metadata would exceed namespace a's quota of 100 bytes (--max-durable-metadata-bytes-per-namespace)");
    registry.register(app, db, false, instance(1, "é".repeat(40))); // 1 + 80 bytes replace the 60
    assertThat(registry.durableMetadataBytes()).isEqualTo(81);
    assertRefusedChangingNothing(() -> registry.updateService(app, db, null, null, Map.of("owner", "x".repeat(20))),
        "--max-durable-metadata-bytes-per-namespace");

    // Ephemeral metadata is not durable and does not count.
    registry.register(app, service("b", "cache"), true, instance(1, "x".repeat(500)));
    assertThat(registry.durableMetadataBytes()).isEqualTo(81);
    assertRefusedChangingNothing(() -> registry.createService(app, service("b", "web"), true, 0,
        Map.of("k", "x".repeat(59))), "the registry's quota of 120 bytes (--max-durable-metadata-bytes)");

    registry.deregister(app, db, "127.0.0.5", 1, "DEFAULT");
    assertThat(registry.durableMetadataBytes()).isZero();
  }

  @Test
  void whatStorageRestoresCountsEvenPastTheQuotasAndLaterGrowthIsRefused() {
    Registry before = new Registry(clock, RegistryConfig.DEFAULTS);
    ServiceKey db = service("a", "db");
    for (int port = 1; port <= 3; port++) {
      before.register(app, db, false, instance(port, null));
    }
    registry.restore(before.takeDurableChanges(), before.revision());
    assertThat(registry.view(db, ViewFilter.ALL).instances()).hasSize(3);
    assertRefusedChangingNothing(() -> registry.register(app, db, false, instance(4, null)),
        "--max-persistent-instances");
  }
}
