package io.reactiveregistry.loadtest.dsl;

import static io.reactiveregistry.loadtest.dsl.Injection.atOnceUsers;
import static io.reactiveregistry.loadtest.dsl.Scenario.scenario;
import static io.reactiveregistry.loadtest.dsl.Steps.connect;
import static io.reactiveregistry.loadtest.dsl.Steps.feed;
import static io.reactiveregistry.loadtest.dsl.Steps.group;
import static io.reactiveregistry.loadtest.dsl.Steps.pause;
import static io.reactiveregistry.loadtest.dsl.Steps.queryChecked;
import static io.reactiveregistry.loadtest.dsl.Steps.queryFed;
import static io.reactiveregistry.loadtest.dsl.Steps.registerFed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.engine.Runner;
import io.reactiveregistry.loadtest.engine.Target;
import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

/** Feeders hand out records as their strategy says; checks fail requests into the errors table; pauses vary. */
class FeedersAndChecksTest {
  @TempDir
  Path dir;

  private Path csv() throws Exception {
    return Files.writeString(dir.resolve("fleet.csv"), """
        service,ip,port,metadata.zone
        fed-a,127.0.0.11,8080,a
        fed-b,127.0.0.12,8080,b
        fed-c,127.0.0.13,8080,c
        """);
  }

  @Test
  void feedersHandOutRecordsCircularlyAtRandomOrOnceEach() throws Exception {
    Feeder circular = Feeder.csv(csv());
    assertThat(List.of(circular.next(), circular.next(), circular.next(), circular.next()))
        .extracting(record -> record.get("service")).containsExactly("fed-a", "fed-b", "fed-c", "fed-a");
    Feeder queue = Feeder.csv(csv()).queue();
    queue.next();
    queue.next();
    queue.next();
    assertThatThrownBy(queue::next).hasMessageContaining("is empty").hasMessageContaining("3 records");
    Feeder random = Feeder.csv(csv()).random();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      seen.add(random.next().get("service"));
    }
    assertThat(seen).containsExactlyInAnyOrder("fed-a", "fed-b", "fed-c");

    Path json = Files.writeString(dir.resolve("fleet.json"),
        "[{\"service\":\"fed-j\",\"ip\":\"127.0.0.21\",\"port\":9000,\"metadata\":{\"zone\":\"j\"}}]");
    assertThat(Feeder.json(json).next()).containsExactlyInAnyOrderEntriesOf(
        Map.of("service", "fed-j", "ip", "127.0.0.21", "port", "9000", "metadata.zone", "j"));
    Path ragged = Files.writeString(dir.resolve("ragged.csv"), "service,ip\nx\n");
    assertThatThrownBy(() -> Feeder.csv(ragged).next()).hasMessageContaining("line 2 has 1 fields, the header 2");
  }

  /** Against a real server: fed registrations, a check that holds and one that fails into the errors table. */
  @Test
  void fedStepsRegisterWhatTheRecordsSayAndAFailedCheckFailsItsRequest() throws Exception {
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(Duration.ofSeconds(10));
    try {
      Simulation simulation = Simulation.named("Fed")
          .setUp(scenario("fleet").exec(connect()).exec(feed(Feeder.csv(csv()).queue()))
              .exec(group("deploy", registerFed(), queryFed(Check.size("/instances").is(1),
                  Check.path("/instances/0/metadata/zone").is("a"), Check.revisionGrows())))
              .inject(atOnceUsers(3)))
          .assertions(Assertion.failedCount("group:deploy").atMost(2), Assertion.failedCount("group:deploy").atMost(1));
      RunResult result = Runner.run(simulation, new Target("127.0.0.1", server.tcpPort()), Map.of(), null, null,
          Duration.ofSeconds(5), new PrintStream(OutputStream.nullOutputStream()));
      assertThat(stats(result, "register").ok()).isEqualTo(3);
      // Only fed-a's instance is in zone a: the other two users' checks fail.
      assertThat(stats(result, "query").ok()).isEqualTo(1);
      assertThat(stats(result, "query").ko()).isEqualTo(2);
      // The group: registering and the checked query, timed together; it failed where the query did.
      assertThat(stats(result, "group:deploy").ok()).isEqualTo(1);
      assertThat(stats(result, "group:deploy").ko()).isEqualTo(2);
      assertThat(result.assertions().subList(0, 2)).extracting(Assertion.Result::passed).containsExactly(true, false);
      assertThat(result.metrics().errors()).extracting(Metrics.ErrorCount::message)
          .containsExactlyInAnyOrder("check: /instances/0/metadata/zone is 'b', not 'a'",
              "check: /instances/0/metadata/zone is 'c', not 'a'");

      // The first run's users have gone, and their ephemeral instances with them: fed-a is empty.
      RunResult wrongSize = Runner.run(Simulation.named("Checked").setUp(scenario("caller").exec(connect())
              .exec(queryChecked("fed-a", Check.size("/instances").is(5))).inject(atOnceUsers(1))),
          new Target("127.0.0.1", server.tcpPort()), Map.of(), null, null, Duration.ofSeconds(5),
          new PrintStream(OutputStream.nullOutputStream()));
      assertThat(wrongSize.metrics().errors()).singleElement().satisfies(error -> {
        assertThat(error.request()).isEqualTo("query");
        assertThat(error.message()).isEqualTo("check: /instances has 0 elements, not 5");
        assertThat(error.count()).isEqualTo(1);
      });
    } finally {
      server.disposeNow(Duration.ofSeconds(5));
    }
  }

  @Test
  void aUniformPauseLastsBetweenItsBounds() {
    StepVerifier.withVirtualTime(() -> pause(Duration.ofSeconds(1), Duration.ofSeconds(2)).run(null))
        .expectSubscription()
        .expectNoEvent(Duration.ofMillis(999))
        .thenAwait(Duration.ofMillis(1_001))
        .verifyComplete();
  }

  private static RequestStats stats(RunResult result, String name) {
    return result.stats().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }
}
