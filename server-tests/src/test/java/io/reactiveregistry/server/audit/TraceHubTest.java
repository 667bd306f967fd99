package io.reactiveregistry.server.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.server.core.ChangeCause;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.ServiceKey;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.scheduler.Schedulers;

/** The audit trail's fan-out: each subscriber gets what its filter matches, in order, and is told what it missed. */
class TraceHubTest {
  private static final ServiceKey ORDERS = ServiceKey.of("public", "DEFAULT_GROUP", "orders");
  private static final ServiceKey BILLING = ServiceKey.of("team-a", "DEFAULT_GROUP", "billing");
  private static final InstantSource CLOCK = InstantSource.fixed(Instant.ofEpochMilli(1_000));
  private final TraceHub hub = new TraceHub(CLOCK, "n1", 3, Schedulers.immediate(),
      new AuditHistory(AuditHistory.Settings.DEFAULTS, CLOCK));
  private final Owner app = new Owner(7, "app@127.0.0.1:5000");

  private RegistryEvent registered(ServiceKey key, long revision, int port) {
    return new RegistryEvent.InstanceUpserted(key, revision, new InstanceView("127.0.0.5#" + port + "#DEFAULT",
        "127.0.0.5", port, "DEFAULT", 1, true, true, true, Map.of()), null, ChangeCause.REGISTER, app, "ops", null, null);
  }

  /** Receives with the demand it is given. */
  private static final class Reader extends BaseSubscriber<byte[]> {
    final List<TraceEvent> received = new ArrayList<>();
    final List<byte[]> bytes = new ArrayList<>();
    private final long demand;

    Reader(long demand) {
      this.demand = demand;
    }

    @Override
    protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
      request(demand);
    }

    @Override
    protected void hookOnNext(byte[] json) {
      bytes.add(json);
      received.add(JsonCodec.json().decode(json, TraceEvent.class));
    }
  }

  @Test
  void eachSubscriberGetsWhatItsFilterMatchesEncodedOnceForAll() {
    Reader everything = new Reader(Long.MAX_VALUE);
    Reader teamA = new Reader(Long.MAX_VALUE);
    Reader alsoEverything = new Reader(Long.MAX_VALUE);
    hub.subscribe(new TraceHub.Filter(null, null, null)).subscribe(everything);
    hub.subscribe(new TraceHub.Filter("team-a", null, null)).subscribe(teamA);
    hub.subscribe(new TraceHub.Filter(null, null, null)).subscribe(alsoEverything);

    hub.accept(List.of(registered(ORDERS, 1, 8080), registered(BILLING, 2, 9090)));
    hub.accept(List.of(registered(ORDERS, 3, 8081)));

    assertThat(everything.received).extracting(TraceEvent::revision).containsExactly(1L, 2L, 3L);
    assertThat(teamA.received).extracting(TraceEvent::service).containsExactly("billing");
    assertThat(everything.received.get(0)).isEqualTo(new TraceEvent(1_000L, 1L, "public", "DEFAULT_GROUP", "orders",
        "127.0.0.5#8080#DEFAULT", "REGISTER", "app@127.0.0.1:5000", "ops", "n1", null, null, null, null));
    // The same change is the same bytes for every subscriber that gets it.
    assertThat(alsoEverything.bytes.get(0)).isSameAs(everything.bytes.get(0));
  }

  @Test
  void aSubscriberTooFarBehindLosesTheOldestAndIsToldHowMany() {
    Reader slow = new Reader(0);
    hub.subscribe(new TraceHub.Filter(null, null, null)).subscribe(slow);
    for (int revision = 1; revision <= 5; revision++) {
      hub.accept(List.of(registered(ORDERS, revision, 8000 + revision)));
    }
    assertThat(slow.received).isEmpty();
    slow.request(10);
    assertThat(slow.received).extracting(TraceEvent::cause).containsExactly("GAP", "REGISTER", "REGISTER", "REGISTER");
    assertThat(slow.received.get(0).missed()).isEqualTo(2);
    assertThat(slow.received.subList(1, 4)).extracting(TraceEvent::revision).containsExactly(3L, 4L, 5L);
  }

  @Test
  void everyChangeIsKeptInTheHistoryWithOrWithoutSubscribers() {
    hub.accept(List.of(registered(ORDERS, 1, 8080), registered(BILLING, 2, 9090)));

    assertThat(hub.history().query(new AuditHistory.Query(null, null, "orders", null, null, null, null, null, 10))
        .events()).extracting(TraceEvent::revision).containsExactly(1L);
  }

  @Test
  void anInstanceThatChangedNamesEachFieldWithItsValueBeforeAndAfter() {
    InstanceView before = new InstanceView("127.0.0.5#8080#DEFAULT", "127.0.0.5", 8080, "DEFAULT", 1, true, true, true,
        Map.of("version", "1", "zone", "a"));
    InstanceView after = new InstanceView("127.0.0.5#8080#DEFAULT", "127.0.0.5", 8080, "DEFAULT", 0.5, false, true,
        true, Map.of("version", "2", "canary", "yes"));
    Reader reader = new Reader(Long.MAX_VALUE);
    hub.subscribe(new TraceHub.Filter(null, null, null)).subscribe(reader);

    hub.accept(List.of(new RegistryEvent.InstanceUpserted(ORDERS, 9, after, before, ChangeCause.OVERRIDE, app,
        "ops", null, null)));

    assertThat(reader.received.get(0).changes()).containsExactly(
        new TraceEvent.FieldChange("weight", "1.0", "0.5"),
        new TraceEvent.FieldChange("enabled", "true", "false"),
        new TraceEvent.FieldChange("metadata.canary", null, "yes"),
        new TraceEvent.FieldChange("metadata.version", "1", "2"),
        new TraceEvent.FieldChange("metadata.zone", "a", null));
  }
}
