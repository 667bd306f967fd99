package io.reactiveregistry.loadtest.dsl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Scenarios with their injection profiles, a maximum duration and the assertions that judge the run. */
public final class Simulation {
  private final String name;
  private final List<Scenario.Population> populations;
  private final Duration maxDuration;
  private final List<Assertion> assertions;

  private Simulation(String name, List<Scenario.Population> populations, Duration maxDuration,
      List<Assertion> assertions) {
    this.name = name;
    this.populations = List.copyOf(populations);
    this.maxDuration = maxDuration;
    this.assertions = List.copyOf(assertions);
  }

  public static Simulation named(String name) {
    return new Simulation(name, List.of(), Duration.ofMinutes(5), List.of());
  }

  public Simulation setUp(Scenario.Population... more) {
    List<Scenario.Population> all = new ArrayList<>(populations);
    all.addAll(List.of(more));
    return new Simulation(name, all, maxDuration, assertions);
  }

  public Simulation maxDuration(Duration value) {
    return new Simulation(name, populations, value, assertions);
  }

  public Simulation assertions(Assertion... more) {
    List<Assertion> all = new ArrayList<>(assertions);
    all.addAll(List.of(more));
    return new Simulation(name, populations, maxDuration, all);
  }

  public String name() {
    return name;
  }

  public List<Scenario.Population> populations() {
    return populations;
  }

  public Duration maxDuration() {
    return maxDuration;
  }

  public List<Assertion> assertions() {
    return assertions;
  }
}
