package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceHistory;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.audit.AuditHistory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What happened after the fact: the changes are made, nobody follows the trail, and the history
 * answers them afterwards over RSocket and HTTP, by each filter, bounded by its size.
 */
class AuditHistoryEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String ORDERS_A = "127.0.0.5#8080#DEFAULT";
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withHistory(new AuditHistory.Settings(50, Duration.ofHours(1))));
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    fixture.close();
  }

  private HttpResponse<String> get(String query) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.server().httpPort()
        + "/api/v1/trace/history" + query)).timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
  }

  private TraceHistory history(String query) throws Exception {
    HttpResponse<String> answer = get(query);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JsonCodec.json().decode(answer.body().getBytes(), TraceHistory.class);
  }

  private static String causes(TraceHistory history) {
    return history.events().stream().map(e -> e.cause() + ":" + e.service()).collect(Collectors.joining(","));
  }

  @Test
  void theChangesOfAnInstanceAreAnsweredAfterTheFactWithWhyItWentAndWhatAnOverrideChanged() throws Exception {
    WireClient ops = fixture.connect("ops");
    WireClient app = fixture.connect("app");
    app.call("instance.register", Registrations.registration("orders", "127.0.0.5", 8080));
    app.call("instance.register", Registrations.registration("billing", "127.0.0.6", 9090));
    ops.call("admin.instance.patch", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},"
        + "\"enabled\":false,\"metadata\":{\"reason\":\"drain\"}}");
    app.call("instance.deregister", Registrations.registration("billing", "127.0.0.6", 9090));
    app.close(); // orders' instance is released with its connection
    await().atMost(WAIT).until(() -> history("?service=orders").events().size() == 3);

    TraceHistory orders = ops.call("admin.trace.query", "{\"service\":\"orders\"}", TraceHistory.class);
    assertThat(causes(orders)).isEqualTo("REGISTER:orders,OVERRIDE:orders,CONNECTION_CLOSED:orders");
    assertThat(orders.truncated()).isFalse();
    assertThat(orders.keptSince()).isEqualTo(orders.events().get(0).time());
    TraceEvent override = orders.events().get(1);
    assertThat(override.instanceId()).isEqualTo(ORDERS_A);
    assertThat(override.connection()).startsWith("ops@127.0.0.1:");
    assertThat(override.changes()).containsExactly(new TraceEvent.FieldChange("enabled", "true", "false"),
        new TraceEvent.FieldChange("metadata.reason", null, "drain"));
    assertThat(orders.events().get(2).connection()).startsWith("app@127.0.0.1:");

    assertThat(causes(history(""))).isEqualTo(
        "REGISTER:orders,REGISTER:billing,OVERRIDE:orders,DEREGISTER:billing,CONNECTION_CLOSED:orders");
    assertThat(causes(history("?cause=DEREGISTER"))).isEqualTo("DEREGISTER:billing");
    assertThat(causes(history("?instance=" + ORDERS_A.replace("#", "%23") + "&cause=OVERRIDE"))).isEqualTo("OVERRIDE:orders");
    assertThat(causes(history("?namespace=public&group=DEFAULT_GROUP&service=billing")))
        .isEqualTo("REGISTER:billing,DEREGISTER:billing");
    assertThat(history("?namespace=team-a").events()).isEmpty();
    assertThat(history("?since=1h").events()).hasSize(5);
    assertThat(history("?until=1h").events()).isEmpty();
    assertThat(history("?since=" + Instant.now().plusSeconds(60)).events()).isEmpty();
    long since = override.time();
    long until = orders.events().get(2).time() + 1;
    // Changes made within the same millisecond share a time: the window holds what its times say.
    assertThat(history("?since=" + since + "&until=" + until).events())
        .allSatisfy(event -> assertThat(event.time()).isBetween(since, until - 1))
        .extracting(TraceEvent::revision).isSorted()
        .contains(override.revision(), orders.events().get(2).revision());
    assertThat(history("?until=" + since).events()).allSatisfy(event -> assertThat(event.time()).isLessThan(since))
        .extracting(TraceEvent::revision).doesNotContain(override.revision());
    TraceHistory newest = history("?limit=2");
    assertThat(causes(newest)).isEqualTo("DEREGISTER:billing,CONNECTION_CLOSED:orders");
    assertThat(newest.truncated()).isTrue();
  }

  @Test
  void aQueryThatBreaksARuleIsRefusedNamingTheFieldAndTheServerGoesOn() throws Exception {
    WireClient ops = fixture.connect("ops");
    for (String[] refused : new String[][] {
        {"?cause=EXPLODED", "cause must be one of"},
        {"?limit=0", "limit must be between 1 and 10000"},
        {"?limit=many", "limit must be a whole number"},
        {"?since=yesterday", "since 'yesterday' is not a time"},
        {"?since=1h&until=2h", "until must be after since"},
        {"?service=no%20spaces", "service"}}) {
      HttpResponse<String> answer = get(refused[0]);
      assertThat(answer.statusCode()).as(refused[0]).isEqualTo(400);
      ErrorBody error = JsonCodec.json().decode(answer.body().getBytes(), ErrorBody.class);
      assertThat(error.code()).isEqualTo("INVALID_PARAM");
      assertThat(error.message()).as(refused[0]).contains(refused[1]);
    }
    assertThat(ops.error("admin.trace.query", "{\"limit\":20000}").message()).contains("limit must be between");
    ops.call("instance.register", Registrations.registration("orders", "127.0.0.5", 8080));
    assertThat(ops.call("admin.trace.query", "{}", TraceHistory.class).events()).hasSize(1);
  }

  @Test
  void theHistoryKeepsItsNewestChangesUpToItsSize() throws Exception {
    WireClient app = fixture.connect("app");
    String batch = IntStream.range(0, 120).mapToObj(i -> "{\"ip\":\"127.0.0.9\",\"port\":" + (10_000 + i) + "}")
        .collect(Collectors.joining(",", "{\"service\":\"fleet\",\"instances\":[", "]}"));
    app.call("instance.batch-register", batch);

    TraceHistory kept = history("?limit=10000");
    assertThat(kept.events()).hasSize(50);
    assertThat(kept.events().get(49).instanceId()).isEqualTo("127.0.0.9#10119#DEFAULT");
    assertThat(kept.events()).extracting(TraceEvent::revision).isSorted();
    assertThat(fixture.server().meters().get("registry.history.events").gauge().value()).isEqualTo(50);
  }

  @Test
  void withAHistoryFileEveryChangeIsAlsoALineThere(@TempDir Path dir) throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    try (ServerFixture logged = new ServerFixture(ServerConfig.ephemeralLoopback()
        .withHistory(new AuditHistory.Settings(50, Duration.ofHours(1), audit, 1 << 20, 5)))) {
      WireClient app = logged.connect("app");
      app.call("instance.register", Registrations.registration("orders", "127.0.0.5", 8080));
      app.close();
      await().atMost(WAIT).until(() -> Files.exists(audit) && Files.readAllLines(audit).size() == 2);
      assertThat(Files.readAllLines(audit)).extracting(line -> JsonCodec.json().decode(line.getBytes(),
          TraceEvent.class).cause()).containsExactly("REGISTER", "CONNECTION_CLOSED");
    }
  }
}
