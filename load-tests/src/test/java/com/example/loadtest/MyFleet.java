package com.example.loadtest;

import static io.reactiveregistry.loadtest.dsl.Assertion.errorPercent;
import static io.reactiveregistry.loadtest.dsl.Assertion.percentile;
import static io.reactiveregistry.loadtest.dsl.Injection.atOnceUsers;
import static io.reactiveregistry.loadtest.dsl.Injection.nothingFor;
import static io.reactiveregistry.loadtest.dsl.Injection.rampUsersPerSec;
import static io.reactiveregistry.loadtest.dsl.Scenario.scenario;
import static io.reactiveregistry.loadtest.dsl.Steps.connect;
import static io.reactiveregistry.loadtest.dsl.Steps.query;
import static io.reactiveregistry.loadtest.dsl.Steps.register;

import io.reactiveregistry.loadtest.dsl.Simulation;
import io.reactiveregistry.loadtest.dsl.SimulationDefinition;
import io.reactiveregistry.loadtest.simulations.Params;
import java.time.Duration;

/**
 * A user's own simulation, as a user writes it outside this project: only the published DSL, in
 * a package of its own. Run by class name in {@code UserSimulationTest}.
 */
// README:start
public final class MyFleet implements SimulationDefinition {
  @Override
  public Simulation define(Params params) {
    int instances = params.integer("instances", 5);          // --instances N on the command line
    return Simulation.named("MyFleet")
        .setUp(
            scenario("deploy").exec(connect()).exec(register("my-fleet", instances, 4))
                .inject(atOnceUsers(2), nothingFor(Duration.ofMillis(200)),
                    rampUsersPerSec(2).to(6).during(Duration.ofSeconds(1))),
            scenario("callers").exec(connect()).exec(query("my-fleet", 10, 2)).inject(atOnceUsers(2)))
        .assertions(errorPercent("*").lessThan(0.1), percentile("register", 99).lessThan(Duration.ofSeconds(2)));
  }
}
// README:end
