package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import io.reactiveregistry.server.core.LifecycleConfig;
import io.reactiveregistry.server.lifecycle.LifecycleTicker;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Self-preservation driven over the wire: a live connection stops heartbeating most of its
 * instances, the server notices that far fewer heartbeats arrive than expected, says so in
 * {@code server.info} and its meter, and keeps the silent instances past their delete timeout;
 * closing the connection still releases them at once.
 */
class SelfPreservationEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  /** Heartbeats every 100 ms; unhealthy after 2 s of silence, removed after 3 s. */
  private static final HeartbeatTimings TIMINGS = new HeartbeatTimings(100, 2_000, 3_000);
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withHeartbeat(TIMINGS)
      .withLifecycle(new LifecycleConfig(Duration.ofSeconds(60), Duration.ofMinutes(10), true,
          Duration.ofSeconds(2), 0.85)));
  private Disposable heartbeats;
  /** What the lifecycle ticker logs, to count how often it announces self-preservation. */
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  {
    logged.start();
    ((Logger) LoggerFactory.getLogger(LifecycleTicker.class)).addAppender(logged);
  }

  @AfterEach
  void stop() {
    ((Logger) LoggerFactory.getLogger(LifecycleTicker.class)).detachAppender(logged);
    if (heartbeats != null) {
      heartbeats.dispose();
    }
    fixture.close();
  }

  private static String instance(int port) {
    return "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + port + "}}";
  }

  private boolean selfPreserving(WireClient ops) {
    return ops.call("server.info", "{}", ServerInfo.class).selfPreservation();
  }

  private int instanceCount(WireClient ops) {
    return ops.call("service.query", "{\"service\":\"orders\"}", ServiceSnapshot.class).instances().size();
  }

  @Test
  void whenMostHeartbeatsStopInstancesAreKeptAndConnectionCloseStillReleases() {
    WireClient app = fixture.connect("app");
    WireClient ops = fixture.connect("ops");
    for (int port = 1; port <= 12; port++) {
      app.call("instance.register", instance(port));
    }
    // Every instance heartbeats for longer than the 2 s window: all is well. Twice as often as
    // expected, so that a sender held up for a while on a busy machine (a third of a second was enough
    // to cross the 85 % threshold at the expected rate) still delivers more than expected.
    heartbeats = Flux.interval(Duration.ofMillis(50)).subscribe(tick -> app.fire("instance.heartbeat", "{}"));
    await().pollDelay(Duration.ofMillis(2_500)).atMost(WAIT).until(() -> true);
    assertThat(selfPreserving(ops)).isFalse();
    heartbeats.dispose();

    // Now only instances 1 and 2 heartbeat, at the same doubled rate: 4 of 12 expected is far below 85 %.
    heartbeats = Flux.interval(Duration.ofMillis(50)).subscribe(tick -> {
      app.fire("instance.heartbeat", instance(1));
      app.fire("instance.heartbeat", instance(2));
    });
    long silentSince = System.nanoTime();
    await().atMost(WAIT).until(() -> selfPreserving(ops));
    assertThat(fixture.server().meters().get("registry.self.preservation").gauge().value()).isEqualTo(1.0);

    // Past the delete timeout of the silent ten, with margin: every one of them is still there.
    Duration pastDeleteTimeout = Duration.ofMillis(TIMINGS.deleteTimeoutMs() + 1_000)
        .minusNanos(System.nanoTime() - silentSince);
    if (!pastDeleteTimeout.isNegative()) {
      await().during(pastDeleteTimeout).atMost(pastDeleteTimeout.plus(WAIT))
          .until(() -> selfPreserving(ops) && instanceCount(ops) == 12);
    }
    assertThat(instanceCount(ops)).isEqualTo(12);
    // Said once, as a warning, however long it lasts.
    assertThat(logged.list).filteredOn(e -> e.getFormattedMessage().startsWith("self-preservation on"))
        .singleElement().satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN));

    // Connection close is not a missed heartbeat: it releases at once, self-preservation or not.
    heartbeats.dispose();
    app.close();
    await().atMost(WAIT).until(() -> instanceCount(ops) == 0);
  }
}
