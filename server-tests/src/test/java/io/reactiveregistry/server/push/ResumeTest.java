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
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Subscribers that resume from a revision (contract: {@code sinceRevision}), on virtual time: what
 * they receive within the history, outside it, and that the history's bounds hold.
 */
class ResumeTest {
  private static final String NODE = "node-a";
  private final ManualClock clock = new ManualClock(1_000_000);
  private final Owner alice = new Owner(1, "alice");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");
  /** Events handed to subscribers that counted for push latency. */
  private final AtomicInteger timed = new AtomicInteger();

  private RegistryRuntime runtime(ResumeHistory.Limits limits) {
    return new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS),
        new PushHub(1_000, (changedAt, trace) -> timed.incrementAndGet(), new ResumeHistory(limits, clock, NODE)));
  }

  private RegistryRuntime runtime() {
    return runtime(ResumeHistory.Limits.DEFAULTS);
  }

  private static InstanceSpec instance(int port) {
    return InstanceSpec.of("instance", "127.0.0.1", port, null, null, null, null);
  }

  private void register(RegistryRuntime runtime, int port) {
    runtime.execute(new Command.Register(alice, orders, true, instance(port)));
  }

  /** A subscriber that takes everything as it comes (the runtime drains on the caller's thread). */
  private static final class Subscriber implements AutoCloseable {
    final List<ServiceEvent> events = new CopyOnWriteArrayList<>();
    final Disposable subscription;

    Subscriber(RegistryRuntime runtime, ServiceKey service, ViewFilter filter, PushHub.Resume resume) {
      subscription = runtime.subscribe(service, filter, resume)
          .map(bytes -> JsonCodec.json().decode(bytes, ServiceEvent.class))
          .subscribe(events::add);
    }

    long lastRevision() {
      return events.get(events.size() - 1).revision();
    }

    List<String> types() {
      return events.stream().map(ServiceEvent::type).toList();
    }

    @Override
    public void close() {
      subscription.dispose();
    }
  }

  /** A subscriber of the view that took its snapshot and left: the revision it would resume from. */
  private long snapshotAndLeave(RegistryRuntime runtime, ViewFilter filter) {
    try (Subscriber first = new Subscriber(runtime, orders, filter, null)) {
      return first.lastRevision();
    }
  }

  private Subscriber subscribe(RegistryRuntime runtime, PushHub.Resume resume) {
    return new Subscriber(runtime, orders, ViewFilter.ALL, resume);
  }

  @Test
  void aResumedSubscriberGetsOnlyWhatItMissedThenLiveEvents() {
    RegistryRuntime runtime = runtime();
    register(runtime, 1);
    long seen;
    try (Subscriber first = subscribe(runtime, null)) {
      assertThat(first.types()).containsExactly("SNAPSHOT");
      assertThat(first.events.get(0).node()).isEqualTo(NODE);
      register(runtime, 2);
      seen = first.lastRevision();
    }
    register(runtime, 3);
    runtime.execute(new Command.Deregister(alice, orders, "127.0.0.1#1#DEFAULT"));

    timed.set(0);
    try (Subscriber resumed = subscribe(runtime, new PushHub.Resume(seen, NODE))) {
      assertThat(resumed.types()).containsExactly("RESUMED", "UPSERT", "REMOVE");
      assertThat(timed).as("changes sent again long after are not push latency").hasValue(0);
      assertThat(resumed.events.get(0)).extracting(ServiceEvent::revision, ServiceEvent::node)
          .containsExactly(seen, NODE);
      assertThat(resumed.events.get(1).instance().instanceId()).isEqualTo("127.0.0.1#3#DEFAULT");
      assertThat(resumed.events.get(2).instanceId()).isEqualTo("127.0.0.1#1#DEFAULT");
      register(runtime, 4);
      assertThat(resumed.types()).containsExactly("RESUMED", "UPSERT", "REMOVE", "UPSERT");
      assertThat(timed).as("a live change is").hasValue(1);
    }
  }

  @Test
  void aResumeWithNothingMissedIsJustResumed() {
    RegistryRuntime runtime = runtime();
    register(runtime, 1);
    long seen = snapshotAndLeave(runtime, ViewFilter.ALL);
    runtime.execute(new Command.Register(alice, ServiceKey.of(null, null, "elsewhere"), true, instance(9)));
    try (Subscriber resumed = subscribe(runtime, new PushHub.Resume(seen, NODE))) {
      assertThat(resumed.types()).containsExactly("RESUMED");
    }
  }

  @Test
  void outsideTheHistoryTheSubscriberGetsASnapshotFlaggedNotResumed() {
    RegistryRuntime runtime = runtime(new ResumeHistory.Limits(3, Duration.ofMinutes(5), 100));
    register(runtime, 1);
    long seen = snapshotAndLeave(runtime, ViewFilter.ALL);
    for (int port = 2; port <= 5; port++) {
      register(runtime, port); // four changes: one more than the history keeps
    }
    assertNotResumed(runtime, new PushHub.Resume(seen, NODE), 5);
    // Another node's revision, or one from the future (another run), is not resumed either.
    long now = runtime.read(r -> r.revision());
    assertNotResumed(runtime, new PushHub.Resume(now, "node-b"), 5);
    assertNotResumed(runtime, new PushHub.Resume(now + 1, NODE), 5);
    // A service never subscribed to has no history.
    try (Subscriber other = new Subscriber(runtime, ServiceKey.of(null, null, "never"), ViewFilter.ALL,
        new PushHub.Resume(now, NODE))) {
      assertThat(other.types()).containsExactly("SNAPSHOT");
      assertThat(other.events.get(0).resumed()).isFalse();
    }
  }

  private void assertNotResumed(RegistryRuntime runtime, PushHub.Resume resume, int instances) {
    try (Subscriber late = subscribe(runtime, resume)) {
      assertThat(late.types()).containsExactly("SNAPSHOT");
      assertThat(late.events.get(0).resumed()).isFalse();
      assertThat(late.events.get(0).instances()).hasSize(instances);
    }
  }

  @Test
  void changesOlderThanTheHistoryKeepsAreNotResumedFrom() {
    RegistryRuntime runtime = runtime(new ResumeHistory.Limits(1_000, Duration.ofSeconds(60), 100));
    register(runtime, 1);
    long seen = snapshotAndLeave(runtime, ViewFilter.ALL);
    register(runtime, 2);
    clock.advance(Duration.ofSeconds(30));
    try (Subscriber resumed = subscribe(runtime, new PushHub.Resume(seen, NODE))) {
      assertThat(resumed.types()).containsExactly("RESUMED", "UPSERT");
    }
    clock.advance(Duration.ofSeconds(31)); // the change is now 61 s old
    assertNotResumed(runtime, new PushHub.Resume(seen, NODE), 2);
  }

  @Test
  void aServiceDeletedInBetweenStartsOver() {
    RegistryRuntime runtime = runtime();
    register(runtime, 1);
    long seen = snapshotAndLeave(runtime, ViewFilter.ALL);
    runtime.execute(new Command.Release(alice));
    clock.advance(Duration.ofMinutes(2)); // past the empty service's cleanup
    runtime.execute(new Command.CleanUp(false));
    register(runtime, 7);
    assertNotResumed(runtime, new PushHub.Resume(seen, NODE), 1);
  }

  @Test
  void aHealthyOnlyViewOfAServiceWithAProtectionThresholdStartsOver() {
    RegistryRuntime runtime = runtime();
    runtime.execute(new Command.CreateService(alice, orders, true, 0.5, Map.of()));
    register(runtime, 1);
    ViewFilter healthyOnly = ViewFilter.of(null, true);
    long seen = snapshotAndLeave(runtime, healthyOnly);
    register(runtime, 2);
    try (Subscriber late = new Subscriber(runtime, orders, healthyOnly, new PushHub.Resume(seen, NODE))) {
      assertThat(late.types()).containsExactly("SNAPSHOT");
      assertThat(late.events.get(0).resumed()).isFalse();
    }
  }

  @Test
  void theHistoryStaysWithinItsTotalUnderChurn() {
    RegistryRuntime runtime = runtime(new ResumeHistory.Limits(1_000, Duration.ofMinutes(5), 50));
    List<Subscriber> subscribers = new ArrayList<>();
    for (int s = 0; s < 5; s++) {
      subscribers.add(new Subscriber(runtime, ServiceKey.of(null, null, "svc-" + s), ViewFilter.ALL, null));
    }
    for (int i = 0; i < 1_000; i++) {
      runtime.execute(new Command.Register(alice, ServiceKey.of(null, null, "svc-" + (i % 5)), true,
          instance(1 + i % 40)));
      runtime.execute(new Command.Deregister(alice, ServiceKey.of(null, null, "svc-" + (i % 5)),
          "127.0.0.1#" + (1 + (i + 7) % 40) + "#DEFAULT"));
      assertThat(runtime.resumeHistorySize()).isLessThanOrEqualTo(50);
    }
    subscribers.forEach(Subscriber::close);
    clock.advance(Duration.ofMinutes(6));
    runtime.execute(new Command.Register(alice, orders, true, instance(1)));
    assertThat(runtime.resumeHistorySize()).as("idle histories forgotten after the age").isZero();
  }

  /**
   * Random churn with subscribers that leave and resume at random points: whatever each receives,
   * snapshot or resume, its fold equals the view after every command.
   */
  @Test
  void theFoldOfAResumedStreamIsTheViewUnderRandomChurn() {
    Random random = new Random(42);
    RegistryRuntime runtime = runtime(new ResumeHistory.Limits(40, Duration.ofMinutes(5), 10_000));
    // A selector's view: re-registrations change metadata, moving instances into and out of it,
    // and a resume must replay those moves.
    ViewFilter[] filters = {ViewFilter.ALL, ViewFilter.of(List.of("a"), false), ViewFilter.of(null, true),
        ViewFilter.of(null, false, "v in (0,1)")};
    Owner[] owners = {alice, new Owner(2, "bob"), new Owner(3, "carol")};
    List<Folder> folders = new ArrayList<>();
    for (ViewFilter filter : filters) {
      folders.add(new Folder(runtime, filter));
    }
    int resumes = 0;
    for (int step = 0; step < 3_000; step++) {
      Owner owner = owners[random.nextInt(owners.length)];
      int port = 1 + random.nextInt(30);
      String id = "127.0.0.1#" + port + "#" + (port % 2 == 0 ? "a" : "b");
      switch (random.nextInt(6)) {
        case 0, 1 -> runtime.execute(new Command.Register(owner, orders, true, InstanceSpec.of("instance",
            "127.0.0.1", port, port % 2 == 0 ? "a" : "b", (double) random.nextInt(3), random.nextBoolean(),
            Map.of("v", String.valueOf(random.nextInt(4))))));
        case 2 -> runtime.execute(new Command.Deregister(owner, orders, id));
        case 3 -> runtime.execute(new Command.PatchInstance(alice, orders, id, random.nextBoolean(), null, null));
        case 4 -> runtime.execute(new Command.Release(owner));
        default -> {
          Folder folder = folders.get(random.nextInt(folders.size()));
          if (folder.resumeAfterGap(random.nextInt(8), random)) {
            resumes++;
          }
        }
      }
      for (Folder folder : folders) {
        folder.assertMatches();
      }
    }
    assertThat(resumes).as("some subscribers really resumed").isGreaterThan(50);
  }

  /** One subscriber of a view, its events folded; it may leave, miss changes and resume. */
  private final class Folder {
    final RegistryRuntime runtime;
    final ViewFilter filter;
    Subscriber subscriber;
    final ViewFold fold = new ViewFold();
    int applied;

    Folder(RegistryRuntime runtime, ViewFilter filter) {
      this.runtime = runtime;
      this.filter = filter;
      this.subscriber = new Subscriber(runtime, orders, filter, null);
    }

    /** Leaves, lets {@code missed} random registrations happen, resumes; true when it was a resume. */
    boolean resumeAfterGap(int missed, Random random) {
      catchUp();
      long seen = subscriber.lastRevision();
      subscriber.close();
      for (int i = 0; i < missed; i++) {
        int port = 1 + random.nextInt(30);
        runtime.execute(new Command.Register(alice, orders, true, InstanceSpec.of("instance", "127.0.0.1", port,
            port % 2 == 0 ? "a" : "b", null, random.nextBoolean(), null)));
      }
      subscriber = new Subscriber(runtime, orders, filter, new PushHub.Resume(seen, NODE));
      applied = 0;
      catchUp();
      return !subscriber.events.isEmpty() && subscriber.events.get(0).type().equals("RESUMED");
    }

    void catchUp() {
      List<ServiceEvent> events = subscriber.events;
      for (; applied < events.size(); applied++) {
        fold.apply(events.get(applied));
      }
    }

    void assertMatches() {
      catchUp();
      assertThat(fold.instances()).as("view %s", filter).isEqualTo(ViewFold.expected(runtime, orders, filter));
    }
  }
}
