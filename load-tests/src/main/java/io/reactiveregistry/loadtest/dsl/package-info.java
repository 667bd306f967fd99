/**
 * The simulation DSL: {@link io.reactiveregistry.loadtest.dsl.Scenario}s of steps, run by virtual
 * users injected by {@link io.reactiveregistry.loadtest.dsl.Injection} profiles, judged by
 * {@link io.reactiveregistry.loadtest.dsl.Assertion}s.
 */
package io.reactiveregistry.loadtest.dsl;
