package io.reactiveregistry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.engine.Runner;
import io.reactiveregistry.loadtest.engine.Target;
import io.reactiveregistry.loadtest.floor.FloorServer;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import io.reactiveregistry.loadtest.simulations.BuiltIn;
import io.reactiveregistry.loadtest.simulations.Params;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * The floor answers the load kit's simulations as the registry does, so that the same commands
 * measure both: registrations answered, heartbeats taken, and a publisher's change pushed to every
 * subscriber with its send time (timed by the kit like the registry's pushes).
 */
class FloorServerTest {
  private final FloorServer floor = FloorServer.on("127.0.0.1", 0, 0);
  private final Disposable running = floor.start();

  @AfterEach
  void stop() {
    running.dispose();
  }

  private RunResult run(String simulation, String... params) {
    Map<String, String> given = new HashMap<>();
    for (int i = 0; i < params.length; i += 2) {
      given.put(params[i], params[i + 1]);
    }
    Params p = new Params(given);
    return Runner.run(BuiltIn.build(simulation, p), new Target("127.0.0.1", floor.rsocketPort()), p.used(), null);
  }

  private static RequestStats stats(RunResult result, String name) {
    return result.stats().stream().filter(s -> s.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + result.stats()));
  }

  @Test
  void theKitsRegistrationsHeartbeatsAndFanOutRunAgainstTheFloor() {
    RunResult registrations = run("LoneRegistrations", "users", "4", "instances", "50");
    assertThat(stats(registrations, "register").ok()).isEqualTo(200);
    assertThat(stats(registrations, "register").ko()).isZero();

    RunResult fanOut = run("SubscriptionFanOut", "subscribers", "20", "updates", "10", "interval-ms", "20");
    assertThat(stats(fanOut, "push").ok()).as("every change to every subscriber, timed").isEqualTo(200);
    assertThat(fanOut.assertions()).allMatch(assertion -> assertion.passed());

    RunResult lean = run("SubscriptionFanOut", "subscribers", "20", "updates", "10", "interval-ms", "20", "lean", "1");
    assertThat(stats(lean, "push").ok()).as("and to every lean subscriber").isEqualTo(200);
  }

  @Test
  void theHttpFloorReadsTheBodyAndAnswersAsTheEurekaDoorDoes() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI apps = URI.create("http://127.0.0.1:" + floor.httpPort() + "/eureka/apps/ORDERS");
    HttpResponse<String> registered = http.send(HttpRequest.newBuilder(apps)
        .POST(HttpRequest.BodyPublishers.ofString("{\"instance\":{}}")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(registered.statusCode()).isEqualTo(204);
    assertThat(http.send(HttpRequest.newBuilder(apps).GET().build(), HttpResponse.BodyHandlers.ofString())
        .statusCode()).isEqualTo(200);
  }
}
