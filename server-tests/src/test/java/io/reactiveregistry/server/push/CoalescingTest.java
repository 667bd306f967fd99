package io.reactiveregistry.server.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
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
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * Subscribers that ask to coalesce (contract: {@code "coalesce": true}): what is pending together
 * comes as one {@code BATCH}, and leaving out superseded changes never changes what the subscriber
 * folds.
 */
class CoalescingTest {
  private static final String NODE = "node-a";
  private final ManualClock clock = new ManualClock(1_000_000);
  private final Owner alice = new Owner(1, "alice");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");

  private static InstanceBody instance(String id, int weight) {
    return new InstanceBody(id, "127.0.0.1", 8080, "DEFAULT", (double) weight, true, true, true, Map.of());
  }

  private static OutboundEvent upsert(long revision, String id) {
    return new OutboundEvent(ServiceEvent.upsert(revision, instance(id, (int) revision)));
  }

  private static OutboundEvent remove(long revision, String id) {
    return new OutboundEvent(ServiceEvent.remove(revision, id));
  }

  private static List<ServiceEvent> messages(List<OutboundEvent> events) {
    return events.stream().map(OutboundEvent::message).toList();
  }

  @Test
  void aChangeSupersededWithinTheBatchIsLeftOut() {
    List<OutboundEvent> events = List.of(upsert(1, "a"), upsert(2, "b"), remove(3, "a"), upsert(4, "c"),
        upsert(5, "a"), remove(6, "c"));
    assertThat(messages(EventBatch.coalesced(events)))
        .containsExactly(events.get(1).message(), events.get(4).message(), events.get(5).message());
  }

  @Test
  void whatCameBeforeASnapshotIsLeftOutButNotWhatFollows() {
    OutboundEvent snapshot = new OutboundEvent(ServiceEvent.snapshot(
        new ServiceSnapshot("public", "DEFAULT_GROUP", "orders", true, 3, false, List.of(instance("a", 1))), NODE));
    OutboundEvent deleted = new OutboundEvent(ServiceEvent.serviceDeleted(2));
    List<OutboundEvent> events = List.of(upsert(1, "a"), deleted, snapshot, upsert(4, "b"), upsert(5, "b"));
    assertThat(messages(EventBatch.coalesced(events)))
        .containsExactly(snapshot.message(), events.get(4).message());
  }

  @Test
  void aBatchCarriesEachEventAsItWouldHaveBeenSentAlone() {
    List<OutboundEvent> events = List.of(upsert(7, "a"), remove(9, "b"),
        new OutboundEvent(ServiceEvent.resumed(6, NODE)));
    ServiceEvent batch = JsonCodec.json().decode(EventBatch.encode(events), ServiceEvent.class);
    assertThat(batch.type()).isEqualTo("BATCH");
    assertThat(batch.revision()).isEqualTo(6);
    assertThat(batch.events()).isEqualTo(messages(events));
    assertThat(batch).isEqualTo(ServiceEvent.batch(messages(events)));
  }

  @Test
  void changesOfOneInstancePendingTogetherComeAsItsLastChange() {
    RegistryRuntime runtime = new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS),
        new PushHub(1_000, (changedAt, trace) -> { }, new ResumeHistory(ResumeHistory.Limits.DEFAULTS, clock, NODE)));
    runtime.execute(new Command.Register(alice, orders, true, InstanceSpec.of("instance", "127.0.0.1", 8081, null,
        null, null, null)));
    Folder folder = new Folder(runtime, ViewFilter.ALL);
    for (int weight = 1; weight <= 3; weight++) {
      runtime.execute(new Command.Register(alice, orders, true,
          InstanceSpec.of("instance", "127.0.0.1", 8080, null, (double) weight, null, null)));
    }
    assertThat(folder.frames).as("only the snapshot so far").isEqualTo(1);
    folder.takeOne();
    assertThat(folder.frames).isEqualTo(2);
    assertThat(folder.batches).as("one change left: sent alone").isZero();
    assertThat(folder.fold.instances().values()).extracting(InstanceBody::port, InstanceBody::weight)
        .containsExactlyInAnyOrder(tuple(8081, 1.0), tuple(8080, 3.0));
  }

  /**
   * Pacing, on virtual time: the first change after a quiet spell goes at once; those that follow
   * within the window wait for its end and go as one batch; a subscriber that did not ask to
   * coalesce gets every change as it comes.
   */
  @Test
  void aCoalescingSubscriberGetsAtMostOneFramePerWindow() {
    ManualDrainLoop loop = new ManualDrainLoop();
    RegistryRuntime runtime = new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS),
        new PushHub(1_000, (changedAt, trace) -> { }, new ResumeHistory(ResumeHistory.Limits.DEFAULTS, clock, NODE),
            new Pacing(Duration.ofMillis(50), loop::nanoTime)));
    register(runtime, 1);
    List<ServiceEvent> paced = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<ServiceEvent> unpaced = new java.util.concurrent.CopyOnWriteArrayList<>();
    var a = runtime.subscribe(orders, ViewFilter.ALL, null, loop, true).map(CoalescingTest::decode)
        .subscribe(paced::add);
    var b = runtime.subscribe(orders, ViewFilter.ALL, null, loop, false).map(CoalescingTest::decode)
        .subscribe(unpaced::add);
    loop.advance(Duration.ofMillis(200));

    register(runtime, 2);
    loop.runDue();
    assertThat(paced).extracting(ServiceEvent::type).as("after a quiet spell: at once").containsExactly("SNAPSHOT",
        "UPSERT");

    register(runtime, 3);
    loop.runDue();
    register(runtime, 4);
    loop.runDue();
    register(runtime, 5);
    loop.advance(Duration.ofMillis(49));
    assertThat(paced).as("within the window: held").hasSize(2);
    assertThat(unpaced).extracting(ServiceEvent::type).as("not coalescing: each at once")
        .containsExactly("SNAPSHOT", "UPSERT", "UPSERT", "UPSERT", "UPSERT");
    loop.advance(Duration.ofMillis(1));
    assertThat(paced).extracting(ServiceEvent::type).containsExactly("SNAPSHOT", "UPSERT", "BATCH");
    assertThat(paced.get(2).events()).extracting(ServiceEvent::type).containsExactly("UPSERT", "UPSERT", "UPSERT");

    loop.advance(Duration.ofMillis(500));
    register(runtime, 6);
    loop.runDue();
    assertThat(paced).extracting(ServiceEvent::type).containsExactly("SNAPSHOT", "UPSERT", "BATCH", "UPSERT");
    a.dispose();
    b.dispose();
  }

  /**
   * The frames budget, on virtual time: with more coalescing subscribers than the window allows
   * at the budget (20 at 100 frames a second: 200 ms each), every one's window widens to share it;
   * a change after a quiet spell still goes at once; as subscribers leave, the window narrows back.
   */
  @Test
  void manyCoalescingSubscribersShareTheFramesBudget() {
    ManualDrainLoop loop = new ManualDrainLoop();
    RegistryRuntime runtime = new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS),
        new PushHub(1_000, (changedAt, trace) -> { }, new ResumeHistory(ResumeHistory.Limits.DEFAULTS, clock, NODE),
            new Pacing(new Pacing.Settings(Duration.ofMillis(50), 100), loop::nanoTime)));
    register(runtime, 1);
    List<List<ServiceEvent>> received = new ArrayList<>();
    List<reactor.core.Disposable> subscriptions = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      List<ServiceEvent> mine = new java.util.concurrent.CopyOnWriteArrayList<>();
      received.add(mine);
      subscriptions.add(runtime.subscribe(orders, ViewFilter.ALL, null, loop, true).map(CoalescingTest::decode)
          .subscribe(mine::add));
    }
    loop.advance(Duration.ofSeconds(1));

    register(runtime, 2);
    loop.runDue();
    assertThat(received).as("after a quiet spell: at once, to each").allSatisfy(events ->
        assertThat(events).extracting(ServiceEvent::type).containsExactly("SNAPSHOT", "UPSERT"));
    register(runtime, 3);
    loop.advance(Duration.ofMillis(199));
    assertThat(received).as("20 subscribers at 100 frames a second: 200 ms between frames, not 50")
        .allSatisfy(events -> assertThat(events).hasSize(2));
    loop.advance(Duration.ofMillis(1));
    assertThat(received).allSatisfy(events -> assertThat(events).hasSize(3));

    for (int i = 5; i < 20; i++) {
      subscriptions.get(i).dispose();
    }
    register(runtime, 4);
    loop.advance(Duration.ofMillis(49));
    assertThat(received.subList(0, 5)).allSatisfy(events -> assertThat(events).hasSize(3));
    loop.advance(Duration.ofMillis(1));
    assertThat(received.subList(0, 5)).as("5 left: the 50 ms window again")
        .allSatisfy(events -> assertThat(events).extracting(ServiceEvent::type).endsWith("UPSERT").hasSize(4));
    subscriptions.forEach(reactor.core.Disposable::dispose);
  }

  /**
   * A connection whose peer is not reading: its subscriber's events wait in its queue (where they
   * coalesce) rather than in the connection's buffer, and go as one batch once it drains; past the
   * queue's bound they collapse into one snapshot.
   */
  @Test
  void aCongestedConnectionsEventsWaitAndCoalesce() {
    ManualDrainLoop loop = new ManualDrainLoop();
    RegistryRuntime runtime = new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS),
        new PushHub(20, (changedAt, trace) -> { }, new ResumeHistory(ResumeHistory.Limits.DEFAULTS, clock, NODE)));
    register(runtime, 1);
    List<ServiceEvent> received = new java.util.concurrent.CopyOnWriteArrayList<>();
    var subscription = runtime.subscribe(orders, ViewFilter.ALL, null, loop, true).map(CoalescingTest::decode)
        .subscribe(received::add);
    loop.congested(true);
    for (int port = 2; port <= 6; port++) {
      register(runtime, port);
      loop.advance(Duration.ofMillis(30));
    }
    assertThat(received).extracting(ServiceEvent::type).as("held while congested").containsExactly("SNAPSHOT");
    loop.congested(false);
    loop.advance(Duration.ofMillis(30));
    assertThat(received).extracting(ServiceEvent::type).containsExactly("SNAPSHOT", "BATCH");
    assertThat(received.get(1).events()).hasSize(5);

    loop.congested(true);
    for (int port = 7; port <= 40; port++) {
      register(runtime, port);
    }
    loop.advance(Duration.ofMillis(30));
    loop.congested(false);
    loop.advance(Duration.ofMillis(30));
    assertThat(received).extracting(ServiceEvent::type).as("past the bound: one fresh snapshot")
        .containsExactly("SNAPSHOT", "BATCH", "SNAPSHOT");
    assertThat(received.get(2).instances()).hasSize(40);
    subscription.dispose();
  }

  private void register(RegistryRuntime runtime, int port) {
    runtime.execute(new Command.Register(alice, orders, true,
        InstanceSpec.of("instance", "127.0.0.1", port, null, null, null, null)));
  }

  private static ServiceEvent decode(byte[] bytes) {
    return JsonCodec.json().decode(bytes, ServiceEvent.class);
  }

  /**
   * Random churn, with subscribers that take their events only now and then (so that several are
   * pending at once, and sometimes more than their queue holds): at each catch-up, what each
   * folded equals the view, and no revision went backwards.
   */
  @Test
  void theFoldOfACoalescedStreamIsTheViewUnderRandomChurn() {
    Random random = new Random(7);
    RegistryRuntime runtime = new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS),
        new PushHub(25, (changedAt, trace) -> { }, new ResumeHistory(ResumeHistory.Limits.DEFAULTS, clock, NODE)));
    // The selectors' views see instances come and go as re-registrations change their metadata.
    ViewFilter[] filters = {ViewFilter.ALL, ViewFilter.of(List.of("a"), false), ViewFilter.of(null, true),
        ViewFilter.of(null, false, "v in (0,1)"), ViewFilter.of(null, true, "v!=2")};
    Owner[] owners = {alice, new Owner(2, "bob"), new Owner(3, "carol")};
    List<Folder> folders = new ArrayList<>();
    for (ViewFilter filter : filters) {
      folders.add(new Folder(runtime, filter));
    }
    for (int step = 0; step < 5_000; step++) {
      Owner owner = owners[random.nextInt(owners.length)];
      int port = 1 + random.nextInt(30);
      String id = "127.0.0.1#" + port + "#" + (port % 2 == 0 ? "a" : "b");
      switch (random.nextInt(8)) {
        case 0, 1, 2 -> runtime.execute(new Command.Register(owner, orders, true, InstanceSpec.of("instance",
            "127.0.0.1", port, port % 2 == 0 ? "a" : "b", (double) random.nextInt(3), random.nextBoolean(),
            Map.of("v", String.valueOf(random.nextInt(4))))));
        case 3 -> runtime.execute(new Command.Deregister(owner, orders, id));
        case 4 -> runtime.execute(new Command.PatchInstance(alice, orders, id, random.nextBoolean(), null, null));
        case 5 -> runtime.execute(new Command.Release(owner));
        case 6 -> runtime.execute(random.nextBoolean() ? new Command.Expire()
            : new Command.Heartbeat(owner, orders, InstanceSpec.of("instance", "127.0.0.1", port,
                port % 2 == 0 ? "a" : "b", null, null, null)));
        default -> {
          Folder folder = folders.get(random.nextInt(folders.size()));
          folder.takeOne();
        }
      }
      if (random.nextInt(10) == 0) {
        for (Folder folder : folders) {
          folder.assertMatches();
        }
      }
      clock.advance(Duration.ofMillis(random.nextInt(100)));
    }
    for (Folder folder : folders) {
      folder.assertMatches();
      assertThat(folder.batches).as("batches taken by %s", folder.filter).isGreaterThan(100);
    }
  }

  /** A coalescing subscriber that asks for one frame at a time, and folds what it takes. */
  private final class Folder extends BaseSubscriber<byte[]> {
    final RegistryRuntime runtime;
    final ViewFilter filter;
    final ViewFold fold = new ViewFold();
    int frames;
    int batches;
    long lastRevision;

    Folder(RegistryRuntime runtime, ViewFilter filter) {
      this.runtime = runtime;
      this.filter = filter;
      runtime.subscribe(orders, filter, null, null, true).subscribe(this);
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      request(1); // the snapshot
    }

    @Override
    protected void hookOnNext(byte[] frame) {
      frames++;
      ServiceEvent event = JsonCodec.json().decode(frame, ServiceEvent.class);
      if (event.type().equals("BATCH")) {
        batches++;
        assertThat(event.events()).hasSizeGreaterThan(1);
        assertThat(event.events()).noneMatch(each -> each.type().equals("BATCH"));
        assertThat(event.revision()).isEqualTo(event.events().get(event.events().size() - 1).revision());
        event.events().forEach(this::apply);
      } else {
        apply(event);
      }
    }

    private void apply(ServiceEvent event) {
      assertThat(event.revision()).as("revisions never go backwards").isGreaterThanOrEqualTo(lastRevision);
      lastRevision = event.revision();
      fold.apply(event);
    }

    /** Takes the next frame: one event, or all that are pending as one batch. */
    void takeOne() {
      request(1);
    }

    /** Takes frames until nothing is pending, then compares the fold with the view. */
    void assertMatches() {
      int before;
      do {
        before = frames;
        request(1);
      } while (frames != before);
      assertThat(fold.instances()).as("view %s", filter).isEqualTo(ViewFold.expected(runtime, orders, filter));
    }
  }
}
