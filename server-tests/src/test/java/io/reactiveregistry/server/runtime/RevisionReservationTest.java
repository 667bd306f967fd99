package io.reactiveregistry.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.storage.DurableStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Revisions are reserved in storage ahead of use, so a restart never hands one out again. */
class RevisionReservationTest {
  /** The revision of every write, in order; a reservation is a write without changes. */
  private final List<Long> reservations = new ArrayList<>();
  private final DurableStore store = new DurableStore() {
    @Override
    public CompletableFuture<Void> append(long writeId, List<DurableChange> changes, long revision) {
      if (changes.isEmpty()) {
        reservations.add(revision);
      }
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> barrier() {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void checkWritable() {}
  };
  private final Registry registry = new Registry(new ManualClock(0), RegistryConfig.DEFAULTS);
  private final RegistryRuntime runtime = new RegistryRuntime(registry, new PushHub(10), store);
  private final Owner app = new Owner(1, "app");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");

  @Test
  void startReservesABlockAboveTheRestoredRevisionAndUseReservesTheNextAtHalfway() {
    runtime.restore(List.of(), 7_000_000);
    runtime.reserveRevisions();
    assertThat(reservations).containsExactly(7_000_000 + RegistryRuntime.REVISION_BLOCK);

    // Flip one instance between two states: one revision per command.
    long half = RegistryRuntime.REVISION_BLOCK / 2;
    for (long i = 0; i < half; i++) {
      runtime.execute(new Command.Register(app, orders, true,
          InstanceSpec.of("instance", "127.0.0.1", 8080, null, i % 2 == 0 ? 1.0 : 2.0, null, null)));
    }
    assertThat(registry.revision()).isEqualTo(7_000_000 + half);
    assertThat(reservations).as("not yet past halfway").hasSize(1);

    runtime.execute(new Command.Register(app, orders, true,
        InstanceSpec.of("instance", "127.0.0.1", 8080, null, 3.0, null, null)));
    assertThat(reservations).containsExactly(7_000_000 + RegistryRuntime.REVISION_BLOCK,
        7_000_000 + half + 1 + RegistryRuntime.REVISION_BLOCK);
  }
}
