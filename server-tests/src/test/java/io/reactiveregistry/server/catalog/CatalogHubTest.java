package io.reactiveregistry.server.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.ManualClock;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.wire.ServicePages;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.scheduler.Schedulers;

/**
 * The catalog stream through the runtime: a subscriber's fold of its events equals
 * {@code service.list} after every change under random churn, across a resume; a slow subscriber
 * collapses to one snapshot; a change that leaves the summaries the same sends nothing. Drained
 * on the calling thread, so each command's events have arrived when it returns.
 */
class CatalogHubTest {
  private final ManualClock clock = new ManualClock(0);
  private final Owner alice = new Owner(1, "alice");
  private final RegistryRuntime runtime = new RegistryRuntime(new Registry(clock, RegistryConfig.DEFAULTS),
      new PushHub(1_000));

  private CatalogHub hub(int maxPending, int historySize) {
    return new CatalogHub(runtime, "n1", maxPending, historySize, Schedulers.immediate());
  }

  private static InstanceSpec instance(int port) {
    return InstanceSpec.of("instance", "127.0.0.1", port, null, null, null, null);
  }

  private static ServiceKey service(int n) {
    return ServiceKey.of(null, n % 3 == 0 ? "billing" : null, "svc-" + n);
  }

  /** A subscriber's services, folded from its events, and where it stands. */
  private static final class Fold {
    final Map<String, ServiceSummary> services = new LinkedHashMap<>();
    long revision;
    String node;

    void apply(CatalogEvent event) {
      switch (event.type()) {
        case CatalogEvent.SNAPSHOT -> {
          services.clear();
          event.services().forEach(s -> services.put(s.group() + "/" + s.service(), s));
          node = event.node();
        }
        case CatalogEvent.UPSERT -> services.put(event.service().group() + "/" + event.service().service(),
            event.service());
        case CatalogEvent.REMOVE -> services.remove(event.group() + "/" + event.name());
        case CatalogEvent.RESUMED -> assertThat(event.node()).isEqualTo(node);
        default -> throw new AssertionError("unknown type " + event.type());
      }
      assertThat(event.revision()).as("revision order").isGreaterThanOrEqualTo(revision);
      revision = event.revision();
    }
  }

  private List<ServiceSummary> listed(String group, String prefix) {
    return runtime.read(reads -> reads.list("public", group, prefix)).stream().map(ServicePages::wire).toList();
  }

  private static CatalogEvent decode(byte[] json) {
    return JsonCodec.json().decode(json, CatalogEvent.class);
  }

  @Test
  void aSubscribersFoldEqualsTheServiceListAfterEveryChangeUnderRandomChurnAndAcrossAResume() {
    CatalogHub hub = hub(1_000, 10_000);
    Fold fold = new Fold();
    List<CatalogEvent> received = new CopyOnWriteArrayList<>();
    Disposable subscription = hub.subscribe(new CatalogHub.Filter("public", null, null), null, null)
        .map(CatalogHubTest::decode).subscribe(event -> {
          received.add(event);
          fold.apply(event);
        });
    Random random = new Random(42);
    Map<ServiceKey, List<Integer>> ports = new LinkedHashMap<>();
    for (int step = 0; step < 3_000; step++) {
      if (step == 1_500) { // the stream is lost; changes go on; it resumes after the last revision it saw
        subscription.dispose();
        for (int missed = 0; missed < 50; missed++) {
          churn(random, ports);
        }
        int before = received.size();
        subscription = hub.subscribe(new CatalogHub.Filter("public", null, null), fold.revision, fold.node)
            .map(CatalogHubTest::decode).subscribe(event -> {
              received.add(event);
              fold.apply(event);
            });
        assertThat(received.get(before).type()).isEqualTo(CatalogEvent.RESUMED);
      }
      churn(random, ports);
      assertThat(fold.services.values()).as("step %d", step).containsExactlyInAnyOrderElementsOf(listed(null, null));
    }
    subscription.dispose();
    assertThat(received).filteredOn(e -> e.type().equals(CatalogEvent.SNAPSHOT)).hasSize(1);
    assertThat(received).filteredOn(e -> e.type().equals(CatalogEvent.REMOVE)).isNotEmpty();
  }

  /** One random change: an instance registered, deregistered, disabled or enabled; a service defined or deleted. */
  private void churn(Random random, Map<ServiceKey, List<Integer>> ports) {
    ServiceKey key = service(random.nextInt(12));
    List<Integer> held = ports.computeIfAbsent(key, k -> new ArrayList<>());
    int choice = random.nextInt(10);
    if (choice < 5 || held.isEmpty() && choice < 9) {
      int port = 1 + random.nextInt(50);
      runtime.execute(new Command.Register(alice, key, true, instance(port)));
      if (!held.contains(port)) {
        held.add(port);
      }
    } else if (choice < 8) {
      Integer port = held.remove(random.nextInt(held.size()));
      runtime.execute(new Command.Deregister(alice, key, "127.0.0.1#" + port + "#DEFAULT"));
    } else if (choice < 9) {
      int port = held.get(random.nextInt(held.size()));
      runtime.execute(new Command.PatchInstance(alice, key, "127.0.0.1#" + port + "#DEFAULT", random.nextBoolean(),
          null, null));
    } else if (held.isEmpty()) {
      runtime.execute(new Command.DeleteService(alice, key));
    } else {
      runtime.execute(new Command.UpdateService(alice, key, null, random.nextBoolean() ? 0.5 : 0.0, null));
    }
  }

  @Test
  void aSubscriberOfAGroupAndAPrefixSeesOnlyThoseServices() {
    CatalogHub hub = hub(1_000, 10_000);
    Fold fold = new Fold();
    Disposable subscription = hub.subscribe(new CatalogHub.Filter("public", "billing", "svc-1"), null, null)
        .map(CatalogHubTest::decode).subscribe(fold::apply);
    for (int n = 0; n < 40; n++) {
      runtime.execute(new Command.Register(alice, service(n), true, instance(1)));
    }
    assertThat(fold.services.keySet()).containsExactlyInAnyOrder("billing/svc-12", "billing/svc-15",
        "billing/svc-18");
    assertThat(fold.services.values()).containsExactlyInAnyOrderElementsOf(listed("billing", "svc-1"));
    subscription.dispose();
  }

  @Test
  void aChangeThatLeavesTheSummaryTheSameSendsNothing() {
    CatalogHub hub = hub(1_000, 10_000);
    ServiceKey orders = ServiceKey.of(null, null, "orders");
    runtime.execute(new Command.Register(alice, orders, true, instance(1)));
    List<CatalogEvent> received = new CopyOnWriteArrayList<>();
    Disposable subscription = hub.subscribe(new CatalogHub.Filter("public", null, null), null, null)
        .map(CatalogHubTest::decode).subscribe(received::add);

    runtime.execute(new Command.PatchInstance(alice, orders, "127.0.0.1#1#DEFAULT", null, 2.0, Map.of("k", "v")));
    runtime.execute(new Command.Heartbeat(alice, orders, instance(1)));
    runtime.execute(new Command.Register(alice, orders, true, instance(2)));

    assertThat(received).extracting(CatalogEvent::type).containsExactly("SNAPSHOT", "UPSERT");
    assertThat(received.get(1).service().instanceCount()).isEqualTo(2);
    subscription.dispose();
  }

  @Test
  void aSlowSubscriberIsSentOneFreshSnapshotInsteadOfMoreWaitingServicesThanItsBound() {
    CatalogHub hub = hub(5, 10_000);
    List<CatalogEvent> received = new CopyOnWriteArrayList<>();
    BaseSubscriber<byte[]> slow = new BaseSubscriber<>() {
      @Override
      protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
        request(1);
      }

      @Override
      protected void hookOnNext(byte[] json) {
        received.add(decode(json));
      }
    };
    hub.subscribe(new CatalogHub.Filter("public", null, null), null, null).subscribe(slow);
    assertThat(received).extracting(CatalogEvent::type).containsExactly("SNAPSHOT");

    for (int n = 0; n < 20; n++) { // 20 services change while the subscriber asks for nothing
      runtime.execute(new Command.Register(alice, ServiceKey.of(null, null, "svc-" + n), true, instance(1)));
    }
    slow.request(Long.MAX_VALUE);
    assertThat(received).extracting(CatalogEvent::type).containsExactly("SNAPSHOT", "SNAPSHOT");
    assertThat(received.get(1).services()).hasSize(20);

    runtime.execute(new Command.Register(alice, ServiceKey.of(null, null, "svc-0"), true, instance(2)));
    assertThat(received).extracting(CatalogEvent::type).containsExactly("SNAPSHOT", "SNAPSHOT", "UPSERT");
    slow.dispose();
  }

  @Test
  void aResumeFromBeforeTheHistoryOrFromAnotherNodeStartsWithASnapshot() {
    CatalogHub hub = hub(1_000, 10);
    for (int n = 0; n < 30; n++) {
      runtime.execute(new Command.Register(alice, ServiceKey.of(null, null, "svc-" + n), true, instance(1)));
    }
    long now = runtime.read(reads -> reads.revision());
    assertThat(first(hub, now - 5, "n1").type()).isEqualTo(CatalogEvent.RESUMED);
    assertThat(first(hub, now - 20, "n1").type()).as("older than the history").isEqualTo(CatalogEvent.SNAPSHOT);
    assertThat(first(hub, now - 5, "n2").type()).as("another node's revisions").isEqualTo(CatalogEvent.SNAPSHOT);
    assertThat(first(hub, now + 5, "n1").type()).as("ahead of this server").isEqualTo(CatalogEvent.SNAPSHOT);
  }

  private static CatalogEvent first(CatalogHub hub, long sinceRevision, String node) {
    return decode(hub.subscribe(new CatalogHub.Filter("public", null, null), sinceRevision, node).blockFirst());
  }
}
