/**
 * Gatling-style load tests for the registry: a simulation is scenarios of virtual users (one
 * RSocket connection each) running steps under injection profiles, measured with HdrHistogram,
 * judged by assertions and reported on the console and in a self-contained HTML file.
 */
package io.reactiveregistry.loadtest;
