package io.reactiveregistry.loadtest.simulations;

import static io.reactiveregistry.loadtest.dsl.Assertion.count;
import static io.reactiveregistry.loadtest.dsl.Assertion.errorPercent;
import static io.reactiveregistry.loadtest.dsl.Assertion.percentile;
import static io.reactiveregistry.loadtest.dsl.Assertion.throughput;
import static io.reactiveregistry.loadtest.dsl.Injection.atOnceUsers;
import static io.reactiveregistry.loadtest.dsl.Injection.constantUsersPerSec;
import static io.reactiveregistry.loadtest.dsl.Scenario.scenario;
import static io.reactiveregistry.loadtest.dsl.Steps.awaitOk;
import static io.reactiveregistry.loadtest.dsl.Steps.changeServices;
import static io.reactiveregistry.loadtest.dsl.Steps.closeAbruptly;
import static io.reactiveregistry.loadtest.dsl.Steps.connect;
import static io.reactiveregistry.loadtest.dsl.Steps.connectAvoiding;
import static io.reactiveregistry.loadtest.dsl.Steps.connectTo;
import static io.reactiveregistry.loadtest.dsl.Steps.heartbeatBurst;
import static io.reactiveregistry.loadtest.dsl.Steps.markTimedPushes;
import static io.reactiveregistry.loadtest.dsl.Steps.pause;
import static io.reactiveregistry.loadtest.dsl.Steps.publishUpdates;
import static io.reactiveregistry.loadtest.dsl.Steps.query;
import static io.reactiveregistry.loadtest.dsl.Steps.queryAtRate;
import static io.reactiveregistry.loadtest.dsl.Steps.reconnectAndRedo;
import static io.reactiveregistry.loadtest.dsl.Steps.register;
import static io.reactiveregistry.loadtest.dsl.Steps.registerAcross;
import static io.reactiveregistry.loadtest.dsl.Steps.resubscribe;
import static io.reactiveregistry.loadtest.dsl.Steps.spreadHeartbeats;
import static io.reactiveregistry.loadtest.dsl.Steps.subscribe;
import static io.reactiveregistry.loadtest.dsl.Steps.subscribeCatalog;
import static io.reactiveregistry.loadtest.dsl.Steps.subscribeLean;

import io.reactiveregistry.loadtest.dsl.Assertion;
import io.reactiveregistry.loadtest.dsl.Scenario;
import io.reactiveregistry.loadtest.dsl.Simulation;
import io.reactiveregistry.loadtest.dsl.SimulationDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/** The built-in simulations by name. Every parameter has a default; see {@code --help}. */
public final class BuiltIn {
  private static final Map<String, Function<Params, Simulation>> SIMULATIONS = new TreeMap<>(Map.ofEntries(
      Map.entry("RegistrationStorm", BuiltIn::registrationStorm),
      Map.entry("SteadyHeartbeats", BuiltIn::steadyHeartbeats),
      Map.entry("SubscriptionFanOut", BuiltIn::subscriptionFanOut),
      Map.entry("CatalogFanOut", BuiltIn::catalogFanOut),
      Map.entry("ChurnWithSubscribers", BuiltIn::churnWithSubscribers),
      Map.entry("ReconnectStorm", BuiltIn::reconnectStorm),
      Map.entry("QueryLoad", BuiltIn::queryLoad),
      Map.entry("QueryStorm", BuiltIn::queryStorm),
      Map.entry("IdleConnections", BuiltIn::idleConnections),
      Map.entry("ResumeCost", BuiltIn::resumeCost),
      Map.entry("LoneHeartbeats", BuiltIn::loneHeartbeats),
      Map.entry("LoneRegistrations", BuiltIn::loneRegistrations)));

  private BuiltIn() {}

  public static List<String> names() {
    return List.copyOf(SIMULATIONS.keySet());
  }

  /**
   * A built-in simulation by name, or a user's by the name of its class (a
   * {@link SimulationDefinition} on the class path).
   */
  public static Simulation build(String name, Params params) {
    Function<Params, Simulation> factory = SIMULATIONS.get(name);
    if (factory == null && name.contains(".")) {
      factory = userDefined(name);
    }
    if (factory == null) {
      throw new IllegalArgumentException("unknown simulation " + name + "; built in: " + names()
          + ", or the class name of a SimulationDefinition on the class path");
    }
    return factory.apply(params);
  }

  private static Function<Params, Simulation> userDefined(String className) {
    Class<?> type;
    try {
      type = Class.forName(className);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("no class " + className + " on the class path");
    }
    if (!SimulationDefinition.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(className + " is not a " + SimulationDefinition.class.getName());
    }
    try {
      SimulationDefinition definition = (SimulationDefinition) type.getConstructor().newInstance();
      return definition::define;
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(className + " needs a public constructor without arguments: " + e);
    }
  }

  /** A deploy: {@code users} connections register {@code instances} each, all at once. */
  static Simulation registrationStorm(Params p) {
    int users = p.integer("users", 50);
    int instances = p.integer("instances", 1_000);
    int concurrency = p.integer("concurrency", 64);
    Duration hold = p.millis("hold-ms", 0);
    boolean persistent = p.integer("persistent", 0) == 1;
    String service = p.text("service", persistent ? "storm-persistent" : "storm");
    String metadata = p.text("metadata", "");
    Duration pace = p.millis("pace-ms", 0);
    return Simulation.named("RegistrationStorm")
        .setUp(scenario("deploy").exec(connect())
            .exec(register(service, instances, concurrency, !persistent, metadata, pace))
            .exec(pause(hold))
            .inject(atOnceUsers(users)))
        .maxDuration(p.millis("max-duration-ms", 300_000))
        .assertions(withOptional(p, "register",
            errorPercent("*").lessThan(0.1), count("register").atLeast((long) users * instances)));
  }

  /**
   * Registrations as a fleet sends them: one at a time on each connection, so that each arrives
   * alone and nothing batches; with {@code --server-pid}, the server's CPU per registration.
   */
  static Simulation loneRegistrations(Params p) {
    int users = p.integer("users", 50);
    int instances = p.integer("instances", 2_000);
    String service = p.text("service", "lone-registrations");
    return Simulation.named("LoneRegistrations")
        .setUp(scenario("one-at-a-time").exec(connect()).exec(register(service, instances, 1, true))
            .inject(atOnceUsers(users)))
        .maxDuration(p.millis("max-duration-ms", 300_000))
        .assertions(withOptional(p, "register",
            errorPercent("*").lessThan(0.1), count("register").atLeast((long) users * instances)));
  }

  /** A steady fleet: each connection registers instances and heartbeats them as fast as it is acknowledged. */
  static Simulation steadyHeartbeats(Params p) {
    int users = p.integer("users", 50);
    int instances = p.integer("instances", 100);
    int heartbeats = p.integer("heartbeats", 20_000);
    return Simulation.named("SteadyHeartbeats")
        .setUp(scenario("fleet").exec(connect()).exec(register("steady", instances, 32))
            .exec(heartbeatBurst(heartbeats, 1_000)).inject(atOnceUsers(users)))
        .maxDuration(p.millis("max-duration-ms", 300_000))
        .assertions(withOptional(p, "heartbeat",
            errorPercent("*").lessThan(0.1), count("heartbeat").atLeast((long) users * heartbeats)));
  }

  /** One popular service: every change must reach every subscriber, quickly. */
  static Simulation subscriptionFanOut(Params p) {
    int subscribers = p.integer("subscribers", 1_000);
    int updates = p.integer("updates", 100);
    Duration interval = p.millis("interval-ms", 100);
    Duration warmup = p.millis("warmup-ms", 3_000); // at most this long for every subscriber's SNAPSHOT
    // In a cluster: the publisher on this member of --target, every subscriber on another one, so
    // that each change is timed across the replication between nodes.
    int publisherMember = p.integer("publisher-member", -1);
    // --lean 1: subscribers read frames on plain Netty instead of the RSocket client, so that a
    // wide fan-out's generator costs less than the server it measures.
    boolean lean = p.integer("lean", 0) == 1;
    if (lean && publisherMember >= 0) {
      throw new IllegalArgumentException("--lean 1 subscribers take the target's addresses in turn; "
          + "--publisher-member needs the RSocket client's subscribers (--lean 0)");
    }
    // The most a subscriber holds its stream: it lets go as soon as the publisher has seen every
    // change arrive (markTimedPushes(false)), so a run ends when its work does.
    Duration hold = warmup.plus(interval.multipliedBy(updates)).plusSeconds(2);
    Scenario subscribing = lean ? scenario("subscribers").exec(subscribeLean("fanout", hold))
        : scenario("subscribers").exec(publisherMember < 0 ? connect() : connectAvoiding(publisherMember))
            .exec(subscribe("fanout", hold));
    return Simulation.named("SubscriptionFanOut")
        .setUp(
            subscribing.inject(atOnceUsers(subscribers)),
            // The publisher creates the service first: a service that appears reaches its
            // subscribers as a fresh SNAPSHOT, and only UPSERTs of existing ones are timed. It
            // publishes once every subscriber has its first SNAPSHOT.
            scenario("publisher").exec(publisherMember < 0 ? connect() : connectTo(publisherMember))
                .exec(register("fanout", 1, 1))
                .exec(awaitOk("subscribe", subscribers, warmup))
                .exec(markTimedPushes(true))
                .exec(publishUpdates("fanout", updates, interval))
                // The server's push latency is read over the timed changes only: until every push
                // has arrived (or 10 s more: a lost one fails the run's count, not this wait).
                .exec(user -> awaitOk("push", (long) subscribers * updates, Duration.ofSeconds(10)).run(user)
                    .onErrorResume(e -> Mono.empty()))
                .exec(markTimedPushes(false)).inject(atOnceUsers(1)))
        .maxDuration(hold.plusSeconds(30))
        .assertions(withOptional(p, "push",
            errorPercent("*").lessThan(0.1), count("push").atLeast((long) subscribers * updates)));
  }

  /**
   * A large catalog changing steadily, watched by many catalog subscribers: how fast does each
   * service's change reach each of them? A fleet registers one instance in each service (5,000 per
   * connection, within its quota) and holds them; the subscribers take the catalog's snapshot;
   * then a publisher changes {@code rate} services a second.
   */
  static Simulation catalogFanOut(Params p) {
    int services = p.integer("services", 10_000);
    int subscribers = p.integer("subscribers", 100);
    double rate = p.decimal("rate", 500);
    Duration duration = p.millis("duration-ms", 10_000);
    Duration warmup = p.millis("warmup-ms", 20_000);
    int perConnection = 5_000;
    int fleet = (services + perConnection - 1) / perConnection;
    int changes = (int) (rate * duration.toMillis() / 1_000);
    Duration hold = warmup.multipliedBy(2).plus(duration).plusSeconds(2);
    java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
    return Simulation.named("CatalogFanOut")
        .setUp(
            scenario("fleet").exec(connect())
                .exec(registerAcross("cat", next, Math.min(perConnection, services), 32))
                // Held past the subscribers' end: their instances' release is no change to time.
                .exec(pause(hold.plusSeconds(1))).inject(atOnceUsers(fleet)),
            scenario("subscribers").exec(awaitOk("register", (long) fleet * Math.min(perConnection, services), warmup))
                .exec(connect()).exec(subscribeCatalog("cat-", hold)).inject(atOnceUsers(subscribers)),
            scenario("publisher").exec(awaitOk("catalog-subscribe", subscribers, warmup.multipliedBy(2)))
                .exec(connect()).exec(changeServices("cat", services, changes, Duration.ofNanos((long) (1e9 / rate))))
                .exec(pause(hold)).inject(atOnceUsers(1)))
        .maxDuration(hold.plusSeconds(30))
        .assertions(withOptional(p, "catalog-push", errorPercent("*").lessThan(0.1)));
  }

  /** Clients come, register and crash while subscribers watch: how fast do they hear of it? */
  static Simulation churnWithSubscribers(Params p) {
    int subscribers = p.integer("subscribers", 100);
    double rate = p.decimal("rate", 20);
    Duration duration = p.millis("duration-ms", 20_000);
    int instances = p.integer("instances", 5);
    Duration lifetime = p.millis("lifetime-ms", 1_000);
    Duration hold = duration.plus(lifetime).plusSeconds(3);
    return Simulation.named("ChurnWithSubscribers")
        .setUp(
            scenario("subscribers").exec(connect()).exec(subscribe("churn", hold)).inject(atOnceUsers(subscribers)),
            scenario("churners").exec(pause(Duration.ofSeconds(1))).exec(connect())
                .exec(register("churn", instances, instances)).exec(pause(lifetime)).exec(closeAbruptly())
                .inject(constantUsersPerSec(rate).during(duration)))
        .maxDuration(hold.plusSeconds(30))
        // Every subscriber hears of every instance of every churner that crashed.
        .assertions(withOptional(p, "close-to-remove", errorPercent("*").lessThan(0.1),
            count("close-to-remove").atLeast((long) subscribers * arrivals(rate, duration) * instances)));
  }

  /** Every client loses its connection at once and comes back: registrations and watches must return. */
  static Simulation reconnectStorm(Params p) {
    int users = p.integer("users", 1_000);
    int instances = p.integer("instances", 1);
    Duration settle = p.millis("settle-ms", 2_000);
    return Simulation.named("ReconnectStorm")
        .setUp(scenario("clients").exec(connect()).exec(register("reconnect", instances, instances))
            .exec(pause(settle)).exec(reconnectAndRedo("reconnect")).exec(pause(settle))
            .inject(atOnceUsers(users)))
        .maxDuration(p.millis("max-duration-ms", 120_000))
        .assertions(withOptional(p, "redo", errorPercent("*").lessThan(0.1), count("redo").atLeast(users)));
  }

  /**
   * A fleet's steady state: every instance heartbeats once per interval, each heartbeat alone on
   * its connection (10,000 instances every 5 s by default: 2,000 lone heartbeats a second). Run
   * with {@code --server-pid} for the server's CPU per heartbeat.
   */
  static Simulation loneHeartbeats(Params p) {
    int users = p.integer("users", 500);
    int instances = p.integer("instances", 20);
    Duration interval = p.millis("interval-ms", 5_000);
    Duration duration = p.millis("duration-ms", 30_000);
    long rounds = duration.toNanos() / interval.toNanos();
    return Simulation.named("LoneHeartbeats")
        .setUp(scenario("fleet").exec(connect()).exec(register("lone", instances, 1))
            .exec(spreadHeartbeats(interval, duration)).inject(atOnceUsers(users)))
        .maxDuration(duration.plus(interval).plusSeconds(60))
        .assertions(withOptional(p, "heartbeat", errorPercent("*").lessThan(0.1),
            count("heartbeat").atLeast(users * instances * rounds)));
  }

  /**
   * Subscribers of a large, quiet service lose their stream and subscribe again a second later,
   * resuming from the revision they saw ({@code --resume 1}) or afresh ({@code --resume 0}): run
   * both with {@code --server-pid} to compare what a resume and a full snapshot cost the server.
   */
  static Simulation resumeCost(Params p) {
    int instances = p.integer("instances", 1_000);
    int subscribers = p.integer("subscribers", 50);
    int rounds = p.integer("rounds", 20);
    Duration gap = p.millis("gap-ms", 1_000);
    boolean resume = p.integer("resume", 1) == 1;
    Duration max = gap.multipliedBy(rounds).multipliedBy(2).plusSeconds(60);
    return Simulation.named("ResumeCost")
        .setUp(
            // The owner holds the service's instances until every subscriber is done.
            scenario("owner").exec(connect()).exec(register("resumable", instances, 64))
                .exec(awaitOk("resubscribe", (long) subscribers * rounds, max)).inject(atOnceUsers(1)),
            scenario("subscribers").exec(awaitOk("register", instances, Duration.ofSeconds(60))).exec(connect())
                .exec(resubscribe("resumable", rounds, gap, resume)).inject(atOnceUsers(subscribers)))
        .maxDuration(max.plusSeconds(30))
        .assertions(withOptional(p, "resubscribe", errorPercent("*").lessThan(0.1),
            count("resubscribe").atLeast((long) subscribers * rounds)));
  }

  /** Read traffic at a constant rate (an open model, corrected for coordinated omission). */
  static Simulation queryLoad(Params p) {
    int users = p.integer("users", 20);
    double rate = p.decimal("rate", 1_000);
    Duration duration = p.millis("duration-ms", 10_000);
    return Simulation.named("QueryLoad")
        .setUp(scenario("readers").exec(connect()).exec(register("catalog", 1, 1))
            .exec(pause(Duration.ofMillis(500))).exec(queryAtRate("catalog", rate, duration))
            .inject(atOnceUsers(users)))
        .maxDuration(duration.plusSeconds(60))
        .assertions(withOptional(p, "query", errorPercent("*").lessThan(0.1),
            count("query").atLeast(users * arrivals(rate, duration))));
  }

  /** Read traffic as fast as the server answers (a closed model): its query capacity. */
  static Simulation queryStorm(Params p) {
    int users = p.integer("users", 20);
    int queries = p.integer("queries", 20_000);
    int concurrency = p.integer("concurrency", 32);
    return Simulation.named("QueryStorm")
        .setUp(scenario("readers").exec(connect()).exec(register("catalog", 1, 1))
            .exec(pause(Duration.ofMillis(500))).exec(query("catalog", queries, concurrency))
            .inject(atOnceUsers(users)))
        .maxDuration(p.millis("max-duration-ms", 300_000))
        .assertions(withOptional(p, "query", errorPercent("*").lessThan(0.1),
            count("query").atLeast((long) users * queries)));
  }

  /** Connections that only hold: what does an idle client cost the server? */
  static Simulation idleConnections(Params p) {
    int users = p.integer("users", 1_000);
    Duration hold = p.millis("hold-ms", 10_000);
    return Simulation.named("IdleConnections")
        .setUp(scenario("idle").exec(connect()).exec(pause(hold)).inject(atOnceUsers(users)))
        .maxDuration(hold.plusSeconds(60))
        .assertions(errorPercent("*").lessThan(0.1), count("connect").atLeast(users));
  }

  /** How many arrivals {@code perSecond} over {@code during} makes, as the injection and queryAtRate count them. */
  private static long arrivals(double perSecond, Duration during) {
    return (long) (perSecond * during.toNanos() / 1e9);
  }

  /**
   * The simulation's own assertions, plus {@code --p99-ms}, {@code --min-throughput} and
   * {@code --max-server-cpu-us} (server CPU per request, needs the server's CPU) when given.
   */
  private static Assertion[] withOptional(Params p, String request, Assertion... base) {
    List<Assertion> all = new ArrayList<>(List.of(base));
    Double p99 = p.optional("p99-ms");
    if (p99 != null) {
      all.add(percentile(request, 99).lessThan(Duration.ofNanos((long) (p99 * 1e6))));
    }
    Double minThroughput = p.optional("min-throughput");
    if (minThroughput != null) {
      all.add(throughput(request).greaterThan(minThroughput));
    }
    Double maxCpu = p.optional("max-server-cpu-us");
    if (maxCpu != null) {
      all.add(Assertion.serverCpuPerRequest(request).atMostMicros(maxCpu));
    }
    return all.toArray(Assertion[]::new);
  }
}
