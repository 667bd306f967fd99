package io.reactiveregistry.loadtest.dsl;

import io.reactiveregistry.loadtest.simulations.Params;

/**
 * A simulation a user writes: a public class with a public no-argument constructor, compiled
 * against the {@code load-tests} artifact, run by its class name
 * ({@code java -cp load-tests.jar:my-sims.jar io.reactiveregistry.loadtest.LoadTestMain com.example.MyFleet
 * --users 100}). The built-in simulations are written the same way.
 *
 * <pre>{@code
 * public final class MyFleet implements SimulationDefinition {
 *   public Simulation define(Params params) {
 *     int users = params.integer("users", 20);
 *     return Simulation.named("MyFleet")
 *         .setUp(scenario("deploy").exec(connect()).exec(register("orders", 10, 4))
 *             .inject(nothingFor(Duration.ofSeconds(1)), rampUsersPerSec(5).to(20).during(Duration.ofSeconds(10))))
 *         .assertions(errorPercent("*").lessThan(0.1), percentile("register", 99).lessThan(Duration.ofMillis(50)));
 *   }
 * }
 * }</pre>
 *
 * <p>Parameters come from the command line through {@link Params}; one the simulation does not
 * read is refused as misspelt.
 */
public interface SimulationDefinition {
  Simulation define(Params params);
}
