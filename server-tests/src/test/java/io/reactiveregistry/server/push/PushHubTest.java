package io.reactiveregistry.server.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** The hub through the runtime, on virtual time: what a subscriber of a view receives. */
class PushHubTest {
  private final ManualClock clock = new ManualClock(0);
  private final Owner alice = new Owner(1, "alice");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");

  private RegistryRuntime runtime(int maxPending) {
    return new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS), new PushHub(maxPending));
  }

  private static InstanceSpec instance(int port, String cluster) {
    return InstanceSpec.of("instance", "127.0.0.1", port, cluster, null, null, null);
  }

  private void register(RegistryRuntime runtime, int port) {
    runtime.execute(new Command.Register(alice, orders, true, instance(port, null)));
  }

  /** {@code count} subscribers of orders, the i-th drained on {@code loops.apply(i)}; each one's events in {@code received}. */
  private List<Disposable> subscribe(RegistryRuntime runtime, int count, IntFunction<DrainLoop> loops,
      List<List<ServiceEvent>> received) {
    List<Disposable> subscriptions = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<ServiceEvent> events = new CopyOnWriteArrayList<>();
      received.add(events);
      subscriptions.add(decoded(runtime.subscribe(orders, ViewFilter.ALL, null, loops.apply(i))).subscribe(events::add));
    }
    return subscriptions;
  }

  private static Flux<ServiceEvent> decoded(Flux<byte[]> stream) {
    return stream.map(bytes -> JsonCodec.json().decode(bytes, ServiceEvent.class));
  }

  @Test
  void aSubscriberGetsTheSnapshotThenEveryChangeInRevisionOrder() {
    RegistryRuntime runtime = runtime(1_000);
    register(runtime, 1);

    StepVerifier.create(decoded(runtime.subscribe(orders, ViewFilter.ALL)))
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("SNAPSHOT");
          assertThat(e.revision()).isEqualTo(1);
          assertThat(e.instances()).hasSize(1);
        })
        .then(() -> register(runtime, 2))
        .assertNext(e -> assertThat(e).extracting(ServiceEvent::type, ServiceEvent::revision).containsExactly("UPSERT", 2L))
        .then(() -> runtime.execute(new Command.Release(alice)))
        .assertNext(e -> assertThat(e).extracting(ServiceEvent::type, ServiceEvent::revision).containsExactly("REMOVE", 3L))
        .assertNext(e -> assertThat(e).extracting(ServiceEvent::type, ServiceEvent::revision).containsExactly("REMOVE", 4L))
        .thenCancel()
        .verify(Duration.ofSeconds(5));
    assertThat(runtime.subscriberCount()).isZero();
  }

  @Test
  void aChangeOutsideTheViewEmitsNothing() {
    RegistryRuntime runtime = runtime(1_000);
    ViewFilter clusterA = new ViewFilter(Set.of("a"), false);

    StepVerifier.create(decoded(runtime.subscribe(orders, clusterA)))
        .assertNext(e -> assertThat(e.type()).isEqualTo("SNAPSHOT"))
        .then(() -> runtime.execute(new Command.Register(alice, orders, true, instance(1, "b"))))
        .then(() -> runtime.execute(new Command.Register(alice, orders, true, instance(2, "a"))))
        // The first registration created the service: the view starts over with a snapshot.
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("SNAPSHOT");
          assertThat(e.instances()).isEmpty();
        })
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("UPSERT");
          assertThat(e.instance().cluster()).isEqualTo("a");
        })
        .thenCancel()
        .verify(Duration.ofSeconds(5));
  }

  @Test
  void anInstanceLeavingAHealthyOnlyViewIsARemove() {
    RegistryRuntime runtime = runtime(1_000);
    register(runtime, 1);

    StepVerifier.create(decoded(runtime.subscribe(orders, new ViewFilter(Set.of(), true))))
        .assertNext(e -> assertThat(e.instances()).hasSize(1))
        .then(() -> {
          clock.advanceMillis(15_000);
          runtime.execute(new Command.Expire());
        })
        .assertNext(e -> assertThat(e.type()).isEqualTo("REMOVE"))
        .then(() -> runtime.execute(new Command.HeartbeatAll(alice)))
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("UPSERT");
          assertThat(e.instance().healthy()).isTrue();
        })
        .thenCancel()
        .verify(Duration.ofSeconds(5));
  }

  @Test
  void subscribersOfOneViewShareOneEncodedCopyOfEachEvent() {
    RegistryRuntime runtime = runtime(1_000);
    register(runtime, 1);
    List<byte[]> first = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<byte[]> second = new java.util.concurrent.CopyOnWriteArrayList<>();
    var a = runtime.subscribe(orders, ViewFilter.ALL).subscribe(first::add);
    var b = runtime.subscribe(orders, ViewFilter.ALL).subscribe(second::add);

    register(runtime, 2);

    assertThat(first).hasSize(2);
    assertThat(second).hasSize(2);
    assertThat(first.get(1)).isSameAs(second.get(1));
    // Asked at the same revision, the snapshot too is encoded once (a reconnect storm of watchers).
    assertThat(first.get(0)).isSameAs(second.get(0));
    // After a change, a new subscriber gets a new snapshot.
    List<byte[]> third = new java.util.concurrent.CopyOnWriteArrayList<>();
    var c = runtime.subscribe(orders, ViewFilter.ALL).subscribe(third::add);
    assertThat(third.get(0)).isNotSameAs(first.get(0));
    assertThat(JsonCodec.json().decode(third.get(0), ServiceEvent.class).instances()).hasSize(2);
    a.dispose();
    b.dispose();
    c.dispose();
  }

  @Test
  void aSubscriberWithItsOwnThreadIsDrainedThereOncePerBurst() {
    RegistryRuntime runtime = runtime(1_000);
    register(runtime, 1);
    ManualDrainLoop eventLoop = new ManualDrainLoop();
    List<ServiceEvent> received = new java.util.concurrent.CopyOnWriteArrayList<>();
    var subscription = decoded(runtime.subscribe(orders, ViewFilter.ALL, null, eventLoop)).subscribe(received::add);
    assertThat(received).extracting(ServiceEvent::type).containsExactly("SNAPSHOT"); // drained on request

    register(runtime, 2);
    register(runtime, 3);
    register(runtime, 4);
    assertThat(received).as("nothing written by the thread that made the changes").hasSize(1);
    assertThat(eventLoop.pending()).as("one drain scheduled for the burst").isEqualTo(1);

    eventLoop.runDue();
    assertThat(received).extracting(ServiceEvent::type).containsExactly("SNAPSHOT", "UPSERT", "UPSERT", "UPSERT");
    assertThat(received).extracting(ServiceEvent::revision).isSorted();
    register(runtime, 5);
    assertThat(eventLoop.pending()).as("a later change schedules another").isEqualTo(1);
    subscription.dispose();
  }

  @Test
  void aChangeHandsEachEventLoopOneTaskHoweverManyOfItsSubscribersItReached() {
    RegistryRuntime runtime = runtime(1_000);
    register(runtime, 1);
    ManualDrainLoop first = new ManualDrainLoop();
    ManualDrainLoop second = new ManualDrainLoop();
    List<List<ServiceEvent>> received = new ArrayList<>();
    List<Disposable> subscriptions = subscribe(runtime, 100, i -> i % 2 == 0 ? first : second, received);

    register(runtime, 2);
    assertThat(first.pending()).as("one task for the loop's 50 subscribers").isEqualTo(1);
    assertThat(second.pending()).isEqualTo(1);
    first.runDue();
    second.runDue();
    assertThat(received).allSatisfy(events ->
        assertThat(events).extracting(ServiceEvent::type).containsExactly("SNAPSHOT", "UPSERT"));

    // Made on a loop's own thread, the change's pushes go after what that thread writes next:
    // the answer to the request that made the change.
    first.callerInLoop(true);
    register(runtime, 3);
    List<String> order = new CopyOnWriteArrayList<>();
    first.execute(() -> order.add("answer written with " + received.get(0).size() + " events pushed"));
    first.runDue();
    assertThat(order).containsExactly("answer written with 2 events pushed");
    assertThat(received.get(0)).extracting(ServiceEvent::type).containsExactly("SNAPSHOT", "UPSERT", "UPSERT");
    subscriptions.forEach(Disposable::dispose);
  }

  @Test
  void aLoopWithThousandsOfSubscribersDrainsThemAFewHundredAtATimeLettingOtherWorkIn() {
    RegistryRuntime runtime = runtime(1_000);
    register(runtime, 1);
    ManualDrainLoop loop = new ManualDrainLoop();
    List<List<ServiceEvent>> received = new ArrayList<>();
    List<Disposable> subscriptions = subscribe(runtime, 1_000, i -> loop, received);

    register(runtime, 2);
    List<Long> pushedWhenOtherWorkRan = new CopyOnWriteArrayList<>();
    loop.execute(() -> pushedWhenOtherWorkRan.add(received.stream().filter(events -> events.size() == 2).count()));
    loop.runDue();

    assertThat(pushedWhenOtherWorkRan).containsExactly((long) SubscriberQueue.DRAINS_PER_TURN);
    assertThat(received).allSatisfy(events -> assertThat(events).hasSize(2));
    subscriptions.forEach(Disposable::dispose);
  }

  @Test
  void aSlowSubscribersBacklogCollapsesIntoOneFreshSnapshot() {
    RegistryRuntime runtime = runtime(10);
    register(runtime, 1);

    StepVerifier.create(decoded(runtime.subscribe(orders, ViewFilter.ALL)), 1)
        .assertNext(e -> assertThat(e.type()).isEqualTo("SNAPSHOT"))
        .then(() -> {
          for (int port = 2; port <= 100; port++) {
            register(runtime, port);
          }
        })
        .thenRequest(1)
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("SNAPSHOT");
          assertThat(e.revision()).isEqualTo(100);
          assertThat(e.instances()).hasSize(100);
        })
        .then(() -> register(runtime, 101))
        .thenRequest(1)
        .assertNext(e -> assertThat(e).extracting(ServiceEvent::type, ServiceEvent::revision).containsExactly("UPSERT", 101L))
        .thenCancel()
        .verify(Duration.ofSeconds(5));
  }

  @Test
  void whenProtectionSwitchesTheViewGetsAFreshSnapshot() {
    Registry registry = new Registry(clock, RegistryConfig.DEFAULTS);
    RegistryRuntime runtime = new RegistryRuntime(registry, new PushHub(1_000));
    runtime.execute(new Command.CreateService(alice, orders, true, 0.5, Map.of()));
    for (int port = 1; port <= 4; port++) {
      register(runtime, port);
    }
    // Heartbeats stop one instance after another (unhealthy 15 s after the last): 2 at 15 s, 3 at
    // 20 s, 4 at 25 s; 1 keeps beating.
    beat(runtime, 5_000, 1, 3, 4);
    beat(runtime, 5_000, 1, 4);

    StepVerifier.create(decoded(runtime.subscribe(orders, new ViewFilter(Set.of(), true))))
        .assertNext(e -> assertThat(e.instances()).hasSize(4))
        .then(() -> beat(runtime, 6_000, 1)) // 3 of 4 healthy: above the threshold
        .assertNext(e -> assertThat(e).extracting(ServiceEvent::type, ServiceEvent::instanceId)
            .containsExactly("REMOVE", "127.0.0.1#2#DEFAULT"))
        .then(() -> beat(runtime, 5_000, 1)) // 2 of 4: exactly the threshold
        .assertNext(e -> assertThat(e).extracting(ServiceEvent::type, ServiceEvent::instanceId)
            .containsExactly("REMOVE", "127.0.0.1#3#DEFAULT"))
        .then(() -> beat(runtime, 5_000, 1)) // 1 of 4: below, every instance shown
        .assertNext(e -> {
          assertThat(e.type()).isEqualTo("SNAPSHOT");
          assertThat(e.protectionTriggered()).isTrue();
          assertThat(e.instances()).hasSize(4);
        })
        .thenCancel()
        .verify(Duration.ofSeconds(5));
  }

  /** {@code millis} on, the server's expiry runs, and then {@code ports}' instances heartbeat. */
  private void beat(RegistryRuntime runtime, long millis, int... ports) {
    clock.advanceMillis(millis);
    runtime.execute(new Command.Expire());
    for (int port : ports) {
      runtime.execute(new Command.Heartbeat(alice, orders, instance(port, null)));
    }
  }
}
