package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.message.ServiceSubscribers;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Who is affected before an operator acts: the watches open on a service, from each door, with
 * the view each asked for, listed while they are open and gone when their stream ends.
 */
class ServiceSubscribersTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final ServerFixture fixture = new ServerFixture();

  @AfterEach
  void stop() {
    fixture.close();
  }

  private List<ServiceSubscribers.Subscriber> subscribers(WireClient ops, String service) {
    return ops.call("admin.service.subscribers", "{\"service\":\"" + service + "\"}", ServiceSubscribers.class)
        .subscribers();
  }

  @Test
  void theWatchesOfAServiceAreListedWithTheirViewWhileOpenAndGoneWhenTheyEnd() throws Exception {
    WireClient ops = fixture.connect("ops");
    WireClient gateway = fixture.connect("gateway");
    WireClient billing = fixture.connect("billing");
    assertThat(subscribers(ops, "orders")).isEmpty();

    Disposable all = gateway.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe();
    Disposable healthyCanaries = billing.stream("service.subscribe", "{\"service\":\"orders\",\"healthyOnly\":true,"
        + "\"clusters\":[\"b\",\"a\"],\"selector\":\"track = canary\"}").subscribe();
    Disposable elsewhere = billing.stream("service.subscribe", "{\"service\":\"payments\"}").subscribe();
    // A server-sent event watch over a plain socket, closed like a browser tab.
    Socket sse = new Socket("127.0.0.1", fixture.server().httpPort());
    sse.getOutputStream().write(("GET /api/v1/watch/public/DEFAULT_GROUP/orders HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Accept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));

    await().atMost(WAIT).until(() -> subscribers(ops, "orders").size() == 3);
    List<ServiceSubscribers.Subscriber> orders = subscribers(ops, "orders");
    assertThat(orders).filteredOn(watch -> watch.client().startsWith("gateway@127.0.0.1:")).singleElement()
        .satisfies(watch -> {
          assertThat(watch.transport()).isEqualTo("rsocket");
          assertThat(watch.healthyOnly()).isFalse();
          assertThat(watch.clusters()).isNull();
          assertThat(watch.selector()).isNull();
          assertThat(watch.since()).isPositive();
        });
    assertThat(orders).filteredOn(watch -> watch.client().startsWith("billing@127.0.0.1:")).singleElement()
        .satisfies(watch -> {
          assertThat(watch.transport()).isEqualTo("rsocket");
          assertThat(watch.healthyOnly()).isTrue();
          assertThat(watch.clusters()).containsExactly("a", "b");
          assertThat(watch.selector()).isEqualTo("track=canary");
        });
    assertThat(orders).filteredOn(watch -> watch.client().startsWith("http@127.0.0.1:")).singleElement()
        .satisfies(watch -> assertThat(watch.transport()).isEqualTo("http"));
    assertThat(orders).extracting(ServiceSubscribers.Subscriber::since).isSorted();
    assertThat(subscribers(ops, "payments")).singleElement()
        .satisfies(watch -> assertThat(watch.client()).startsWith("billing@"));

    all.dispose();
    sse.close();
    await().atMost(WAIT).until(() -> subscribers(ops, "orders").size() == 1);
    billing.close(); // its streams end with its connection
    await().atMost(WAIT).until(() -> subscribers(ops, "orders").isEmpty() && subscribers(ops, "payments").isEmpty());
    healthyCanaries.dispose();
    elsewhere.dispose();
  }

  @Test
  void aServiceWithoutANameIsRefusedNamingTheField() {
    WireClient ops = fixture.connect("ops");
    assertThat(ops.error("admin.service.subscribers", "{}").message()).contains("service");
  }
}
