package io.reactiveregistry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.loadtest.dsl.Assertion;
import io.reactiveregistry.loadtest.engine.LeanStream;
import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.engine.Runner;
import io.reactiveregistry.loadtest.engine.Target;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import io.reactiveregistry.loadtest.report.ConsoleReport;
import io.reactiveregistry.loadtest.report.HtmlReport;
import io.reactiveregistry.loadtest.simulations.BuiltIn;
import io.reactiveregistry.loadtest.simulations.Params;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.rsocket.util.DefaultPayload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/** Every built-in simulation at a tiny scale against an in-process server, with its report checked. */
class SimulationsTest {
  private static RegistryServer server;

  @TempDir
  Path reports;

  @BeforeAll
  static void start() {
    server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(10));
  }

  @AfterAll
  static void stop() {
    server.disposeNow(Duration.ofSeconds(5));
    assertThat(ran).as("every built-in simulation is run here").containsExactlyInAnyOrderElementsOf(BuiltIn.names());
  }

  /** The simulations this class ran: every built-in one must be among them. */
  private static final java.util.Set<String> ran = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private RunResult run(String simulation, String... params) {
    ran.add(simulation);
    Map<String, String> given = new HashMap<>();
    for (int i = 0; i < params.length; i += 2) {
      given.put(params[i], params[i + 1]);
    }
    Params p = new Params(given);
    return Runner.run(BuiltIn.build(simulation, p), new Target("127.0.0.1", server.tcpPort()), p.used(), null);
  }

  private static RequestStats stats(RunResult result, String name) {
    return result.stats().stream().filter(s -> s.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + result.stats()));
  }

  private String reportOf(RunResult result) throws Exception {
    Path index = HtmlReport.write(result, reports);
    assertThat(index).exists();
    assertThat(index.toString()).contains(result.simulation().toLowerCase());
    String html = Files.readString(index);
    assertThat(html).doesNotContain("<script src").doesNotContain("<link ");
    assertThat(html).contains("uPlot").contains("id=\"throughput\"").contains("id=\"latency\"").contains("id=\"users\"")
        .contains("id=\"median\"").contains("id=\"errors\"").contains("\"p50\":{").contains("\"errors\":{");
    return html;
  }

  @Test
  void registrationStormRegistersEveryInstanceAndReportsIt() throws Exception {
    RunResult result = run("RegistrationStorm", "users", "4", "instances", "50", "concurrency", "8");

    assertThat(stats(result, "register").ok()).isEqualTo(200);
    assertThat(stats(result, "register").ko()).isZero();
    assertThat(stats(result, "connect").ok()).isEqualTo(4);
    assertThat(result.passed()).isTrue();
    String html = reportOf(result);
    assertThat(html).contains("data-request=\"register\"><td>register</td><td>200</td><td>200</td><td>0</td>");
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    ConsoleReport.print(result, new PrintStream(console, true, StandardCharsets.UTF_8));
    assertThat(console.toString(StandardCharsets.UTF_8)).contains("register").contains("3 passed, 0 failed");
  }

  @Test
  void aPacedPersistentStormRegistersWithTheGivenMetadataAndWaitsBetweenAnswers() throws Exception {
    long started = System.nanoTime();
    RunResult result = run("RegistrationStorm", "users", "2", "instances", "5", "concurrency", "1",
        "persistent", "1", "service", "paced", "metadata", "\"health.check.enabled\":\"false\"", "pace-ms", "250");
    long tookMs = (System.nanoTime() - started) / 1_000_000;

    assertThat(stats(result, "register").ok()).isEqualTo(10);
    // Five registrations one after another on each connection, 250 ms after each answer.
    assertThat(tookMs).as("the run's length").isGreaterThanOrEqualTo(1_000);
    assertThat(stats(result, "register").maxUs()).as("a registration's time leaves the wait out").isLessThan(250_000);
    HttpResponse<String> view = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + server.httpPort() + "/api/v1/services/public/DEFAULT_GROUP/paced")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(view.body()).contains("\"ephemeral\":false");
    assertThat(view.body().split("\"health.check.enabled\":\"false\"", -1)).as("instances with the metadata")
        .hasSize(11);
  }

  @Test
  void assertionsAreEvaluatedBothWays() throws Exception {
    RunResult failing = run("RegistrationStorm", "users", "2", "instances", "10", "p99-ms", "0.000001",
        "min-throughput", "1000000000");
    RunResult passing = run("RegistrationStorm", "users", "2", "instances", "10", "p99-ms", "60000",
        "min-throughput", "1");

    assertThat(failing.passed()).isFalse();
    assertThat(failing.assertions()).extracting(Assertion.Result::passed).containsExactly(true, true, false, false, true);
    assertThat(passing.passed()).isTrue();
    assertThat(reportOf(failing)).contains("class=\"fail\">FAIL");
  }

  @Test
  void steadyHeartbeatsAreAcknowledgedAndCounted() throws Exception {
    RunResult result = run("SteadyHeartbeats", "users", "3", "instances", "5", "heartbeats", "2500");

    assertThat(stats(result, "heartbeat").ok()).isEqualTo(7_500);
    assertThat(stats(result, "heartbeat-ack").ok()).isEqualTo(9);
    assertThat(result.passed()).isTrue();
    reportOf(result);
  }

  @Test
  void subscriptionFanOutDeliversEveryChangeToEverySubscriber() throws Exception {
    RunResult result = run("SubscriptionFanOut", "subscribers", "20", "updates", "10", "interval-ms", "50",
        "warmup-ms", "10000");

    assertThat(stats(result, "subscribe").ok()).isEqualTo(20);
    assertThat(stats(result, "update").ok()).isEqualTo(10);
    assertThat(stats(result, "push").ok()).isEqualTo(200);
    assertThat(result.passed()).isTrue();
    assertThat(result.durationSeconds()).as("the subscribers let go once every change has reached them, "
        + "not at the end of their 12.5 s hold").isLessThan(10);
    reportOf(result);
  }

  @Test
  void leanSubscribersReadTheSameFanOutFrameByFrame() throws Exception {
    ran.add("SubscriptionFanOut");
    Params p = new Params(Map.of("subscribers", "20", "updates", "10", "interval-ms", "50", "warmup-ms", "10000",
        "lean", "1"));
    RunResult result = Runner.run(BuiltIn.build("SubscriptionFanOut", p), new Target("127.0.0.1", server.tcpPort()),
        p.used(), null, URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics"));

    assertThat(stats(result, "subscribe").ok()).isEqualTo(20);
    assertThat(stats(result, "push").ok()).as("every change to every lean subscriber, timed").isEqualTo(200);
    assertThat(stats(result, "push").p99Us()).isPositive();
    assertThat(result.stats()).extracting(RequestStats::name).as("only the publisher connected the RSocket client")
        .containsOnlyOnce("connect");
    assertThat(stats(result, "connect").ok()).isEqualTo(1);
    assertThat(result.passed()).isTrue();
    assertThat(result.serverPush()).as("the server's own push latency, read from its histogram").isNotNull();
    // Read over the timed changes (the publisher marks them), not the publisher's instance going
    // after them (20 more); its appearing, just before, may still be in flight to a few.
    assertThat(result.serverPush().events()).as("the timed changes' pushes").isBetween(200L, 219L);
    assertThat(result.durationSeconds()).as("the lean subscribers let go once every change has reached them")
        .isLessThan(10);
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    ConsoleReport.print(result, new PrintStream(console, true, StandardCharsets.UTF_8));
    assertThat(console.toString(StandardCharsets.UTF_8)).contains("server push: " + result.serverPush().events()
        + " events, p50 ").contains("generator CPU during the run: ");
    assertThat(result.generatorCpuSeconds()).as("this process's CPU over the run").isPositive();
  }

  @Test
  void aLeanStreamTheServerRefusesFailsWithTheServersReason() {
    Target target = new Target("127.0.0.1", server.tcpPort());
    Mono<Void> refused = LeanStream.hold(target.endpoint(0), null, DefaultPayload.create("{\"client\":\"lean\"}"),
        "service.subscribe", "{\"service\":\"\"}", Duration.ofSeconds(10), (data, now) -> { });

    assertThatThrownBy(() -> refused.block(Duration.ofSeconds(5))).hasMessageContaining("service");
  }

  @Test
  void catalogFanOutTimesEachServicesChangeAtEveryCatalogSubscriber() throws Exception {
    RunResult result = run("CatalogFanOut", "services", "20", "subscribers", "5", "rate", "100", "duration-ms", "300",
        "warmup-ms", "1000");

    assertThat(stats(result, "register").ok()).isEqualTo(20);
    assertThat(stats(result, "catalog-subscribe").ok()).isEqualTo(5);
    assertThat(stats(result, "change").ok()).isEqualTo(30);
    // Each of the 20 services changed at least once, at each subscriber (a service's changes close
    // together may reach a subscriber as one event).
    assertThat(stats(result, "catalog-push").ok()).isBetween(100L, 150L);
    assertThat(result.passed()).isTrue();
    reportOf(result);
  }

  @Test
  void churnMeasuresCloseToRemoveAtEverySubscriber() throws Exception {
    RunResult result = run("ChurnWithSubscribers", "subscribers", "5", "rate", "5", "duration-ms", "1000",
        "instances", "2", "lifetime-ms", "300");

    assertThat(stats(result, "register").ok()).isEqualTo(10);
    // Every instance of every churner is seen removed by every subscriber.
    assertThat(stats(result, "close-to-remove").ok()).isEqualTo(5 * 10);
    assertThat(result.passed()).isTrue();
    reportOf(result);
  }

  @Test
  void reconnectStormBringsEveryRegistrationBack() throws Exception {
    RunResult result = run("ReconnectStorm", "users", "20", "settle-ms", "300");

    assertThat(stats(result, "redo").ok()).isEqualTo(20);
    assertThat(stats(result, "register").ok()).isEqualTo(40);
    assertThat(result.passed()).isTrue();
    reportOf(result);
  }

  @Test
  void resumeCostResumesEverySubscriptionOrSubscribesAfresh() throws Exception {
    RunResult resumed = run("ResumeCost", "instances", "30", "subscribers", "3", "rounds", "2", "gap-ms", "50");
    assertThat(stats(resumed, "resubscribe").ok()).as("every resubscription resumed").isEqualTo(6);
    assertThat(resumed.passed()).isTrue();
    RunResult fresh = run("ResumeCost", "instances", "30", "subscribers", "3", "rounds", "2", "gap-ms", "50",
        "resume", "0");
    assertThat(stats(fresh, "resubscribe").ok()).isEqualTo(6);
    reportOf(fresh);
  }

  @Test
  void loneRegistrationsRegisterOneAtATimeOnEachConnection() throws Exception {
    RunResult result = run("LoneRegistrations", "users", "3", "instances", "20");
    assertThat(stats(result, "register").ok()).isEqualTo(60);
    assertThat(result.passed()).isTrue();
  }

  @Test
  void loneHeartbeatsSendEveryInstancesHeartbeatEachInterval() throws Exception {
    RunResult result = run("LoneHeartbeats", "users", "4", "instances", "5", "interval-ms", "500",
        "duration-ms", "1500");
    // 3 rounds of 5 instances for each of 4 users, each acknowledged by a round trip after its round.
    assertThat(stats(result, "heartbeat").ok()).isEqualTo(4 * 5 * 3);
    assertThat(stats(result, "heartbeat-ack").ok()).isEqualTo(4 * 3);
    assertThat(result.passed()).isTrue();
  }

  @Test
  void queryLoadRunsAtTheRequestedRate() throws Exception {
    RunResult result = run("QueryLoad", "users", "2", "rate", "200", "duration-ms", "1000");

    assertThat(stats(result, "query").ok()).isEqualTo(400);
    // 2 users x 200/s for 1 s: about 400/s; wide bounds, as a loaded machine can stretch the tail.
    assertThat(stats(result, "query").meanRatePerSec()).isBetween(150.0, 800.0);
    assertThat(result.passed()).isTrue();
    reportOf(result);
  }

  @Test
  void queryStormRunsEveryQueryAsFastAsTheServerAnswers() throws Exception {
    RunResult result = run("QueryStorm", "users", "2", "queries", "500", "concurrency", "8");

    assertThat(stats(result, "query").ok()).isEqualTo(1_000);
    assertThat(result.assertions()).extracting(Assertion.Result::description)
        .contains("successful query >= 1000");
    assertThat(result.passed()).isTrue();
    reportOf(result);
  }

  @Test
  void anErrorRateOverNoRequestsFails() {
    Assertion.Result result = Assertion.errorPercent("*").lessThan(0.1).evaluate(java.util.List.of());

    assertThat(result.passed()).isFalse();
    assertThat(result.actual()).isEqualTo("no requests");
  }

  @Test
  void usersCutOffByTheMaximumDurationCountAsFailed() {
    RunResult result = run("RegistrationStorm", "users", "3", "instances", "1", "hold-ms", "10000",
        "max-duration-ms", "500");

    assertThat(stats(result, "scenario:deploy").ko()).isEqualTo(3);
    assertThat(result.passed()).isFalse();
  }

  @Test
  void churnAndQueryLoadFailWhenTheyDoNotSeeWhatTheyMeasure() {
    // Figures of a run in which every connect and register worked but nothing was measured.
    io.reactiveregistry.loadtest.metrics.Metrics measured = new io.reactiveregistry.loadtest.metrics.Metrics();
    long now = System.nanoTime();
    measured.record("connect", now, now + 1_000, true);
    measured.record("register", now, now + 1_000, true);
    for (String simulation : java.util.List.of("ChurnWithSubscribers", "QueryLoad")) {
      java.util.List<Assertion.Result> results = BuiltIn.build(simulation, new Params(Map.of())).assertions().stream()
          .map(assertion -> assertion.evaluate(measured.stats())).toList();
      assertThat(results).as(simulation).anySatisfy(r -> {
        assertThat(r.description()).startsWith("successful ");
        assertThat(r.passed()).isFalse();
      });
    }
  }

  @Test
  void theServersCpuAndHeapAreReadFromItsMetricsEndpoint() {
    Params p = new Params(Map.of("users", "2", "instances", "20"));
    java.net.URI metrics = java.net.URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics");
    RunResult result = Runner.run(BuiltIn.build("RegistrationStorm", p), new Target("127.0.0.1", server.tcpPort()),
        p.used(), null, metrics);

    assertThat(result.serverUsage()).isNotNull();
    assertThat(result.serverUsage().source()).isEqualTo(metrics.toString());
    assertThat(result.serverUsage().cpuSeconds()).isNotNegative();
    assertThat(result.serverUsage().heapBytesAtEnd()).isPositive();
  }

  @Test
  void aServerCpuTargetPassesOrFailsOnTheMeasuredCpuAndFailsWhenNothingWasMeasured() {
    java.net.URI metrics = java.net.URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics");
    Target target = new Target("127.0.0.1", server.tcpPort());
    Params generous = new Params(Map.of("users", "2", "instances", "50", "max-server-cpu-us", "1000000"));
    Params impossible = new Params(Map.of("users", "2", "instances", "50", "max-server-cpu-us", "0.000001"));

    assertThat(Runner.run(BuiltIn.build("RegistrationStorm", generous), target, generous.used(), null, metrics)
        .passed()).isTrue();
    RunResult tooMuch = Runner.run(BuiltIn.build("RegistrationStorm", impossible), target, impossible.used(), null,
        metrics);
    assertThat(tooMuch.passed()).isFalse();
    assertThat(tooMuch.assertions()).filteredOn(r -> r.description().startsWith("server CPU per register"))
        .singleElement().satisfies(r -> assertThat(r.actual()).endsWith("µs"));
    RunResult unmeasured = Runner.run(BuiltIn.build("RegistrationStorm", generous), target, generous.used(), null);
    assertThat(unmeasured.passed()).isFalse();
    assertThat(unmeasured.assertions()).extracting(Assertion.Result::actual)
        .contains("server CPU not measured (give --server-pid)");
  }

  @Test
  void anUnreachableMetricsEndpointIsLeftOutQuietly() {
    Params p = new Params(Map.of("users", "1", "instances", "1"));
    RunResult result = Runner.run(BuiltIn.build("RegistrationStorm", p), new Target("127.0.0.1", server.tcpPort()),
        p.used(), null, java.net.URI.create("http://127.0.0.1:1/metrics"));

    assertThat(result.serverUsage()).isNull();
    assertThat(result.passed()).isTrue();
  }

  @Test
  void idleConnectionsHold() throws Exception {
    RunResult result = run("IdleConnections", "users", "30", "hold-ms", "300");

    assertThat(stats(result, "connect").ok()).isEqualTo(30);
    assertThat(result.passed()).isTrue();
    assertThat(result.metrics().activeUsersPerSecond()).contains(30);
    reportOf(result);
  }
}
