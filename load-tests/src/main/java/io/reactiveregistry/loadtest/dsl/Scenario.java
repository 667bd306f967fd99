package io.reactiveregistry.loadtest.dsl;

import io.reactiveregistry.loadtest.engine.VirtualUser;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A named sequence of steps; each virtual user runs it once on its own connection. */
public final class Scenario {
  private final String name;
  private final List<Step> steps;

  private Scenario(String name, List<Step> steps) {
    this.name = name;
    this.steps = List.copyOf(steps);
  }

  public static Scenario scenario(String name) {
    return new Scenario(name, List.of());
  }

  /** A copy with one more step at the end. */
  public Scenario exec(Step step) {
    List<Step> more = new ArrayList<>(steps);
    more.add(step);
    return new Scenario(name, more);
  }

  public String name() {
    return name;
  }

  /** Binds the scenario to an injection profile. */
  /** The scenario's users, arriving as the steps say, one step after the other (Gatling's {@code inject}). */
  public Population inject(Injection... steps) {
    return new Population(this, steps.length == 1 ? steps[0] : Injection.sequence(List.of(steps)));
  }

  Mono<Void> run(VirtualUser user) {
    return Flux.fromIterable(steps).concatMap(step -> step.run(user)).then();
  }

  /** A scenario and how its users arrive. */
  public record Population(Scenario scenario, Injection injection) {
    public Mono<Void> run(VirtualUser user) {
      return scenario.run(user);
    }
  }
}
