package com.example.loadtest;

import static io.reactiveregistry.loadtest.dsl.Assertion.errorPercent;
import static io.reactiveregistry.loadtest.dsl.Injection.atOnceUsers;
import static io.reactiveregistry.loadtest.dsl.Scenario.scenario;
import static io.reactiveregistry.loadtest.dsl.Steps.connect;
import static io.reactiveregistry.loadtest.dsl.Steps.feed;
import static io.reactiveregistry.loadtest.dsl.Steps.registerFed;

import io.reactiveregistry.loadtest.dsl.Feeder;
import io.reactiveregistry.loadtest.dsl.Simulation;
import io.reactiveregistry.loadtest.dsl.SimulationDefinition;
import io.reactiveregistry.loadtest.simulations.Params;
import java.nio.file.Path;

/**
 * A user's simulation whose fleet comes from a CSV file named by a parameter ({@code --fleet},
 * {@code fleet.csv} by default): defined with the defaults before the given parameters are known,
 * it must not need a file of the default name. Run in {@code UserSimulationTest}.
 */
public final class FedFleet implements SimulationDefinition {
  @Override
  public Simulation define(Params params) {
    Feeder fleet = Feeder.csv(Path.of(params.text("fleet", "fleet.csv"))).queue();
    int users = params.integer("users", 3);
    return Simulation.named("FedFleet")
        .setUp(scenario("fleet").exec(connect()).exec(feed(fleet)).exec(registerFed()).inject(atOnceUsers(users)))
        .assertions(errorPercent("*").lessThan(0.1));
  }
}
