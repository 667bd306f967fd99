package io.reactiveregistry.loadtest.simulations;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A simulation's scale parameters from the command line ({@code --users 50 --instances 1000}),
 * each with the simulation's own default. What was used is reported with the results.
 */
public final class Params {
  private final Map<String, String> given;
  private final Map<String, String> used = new LinkedHashMap<>();

  public Params(Map<String, String> given) {
    this.given = Map.copyOf(given);
  }

  public int integer(String name, int fallback) {
    int value = given.containsKey(name) ? number(name, Integer::parseInt, "a whole number") : fallback;
    used.put(name, Integer.toString(value));
    return value;
  }

  public double decimal(String name, double fallback) {
    double value = given.containsKey(name) ? number(name, Double::parseDouble, "a number") : fallback;
    used.put(name, Double.toString(value));
    return value;
  }

  /** A word, e.g. {@code --service deploy-7}. */
  public String text(String name, String fallback) {
    String value = given.getOrDefault(name, fallback);
    used.put(name, value);
    return value;
  }

  /** A duration in milliseconds on the command line, e.g. {@code --duration-ms 30000}. */
  public Duration millis(String name, long fallbackMillis) {
    long value = given.containsKey(name) ? number(name, Long::parseLong, "a whole number of milliseconds")
        : fallbackMillis;
    used.put(name, Long.toString(value));
    return Duration.ofMillis(value);
  }

  /** An optional threshold: absent means the assertion is not made. */
  public Double optional(String name) {
    if (!given.containsKey(name)) {
      return null;
    }
    used.put(name, given.get(name));
    return number(name, Double::parseDouble, "a number");
  }

  /** The parameters given that the simulation does not take: misspelt, or meant for another one. */
  public Set<String> unknown() {
    Set<String> unknown = new TreeSet<>(given.keySet());
    unknown.removeAll(used.keySet());
    return unknown;
  }

  private <T> T number(String name, Function<String, T> parse, String what) {
    try {
      return parse.apply(given.get(name).trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be " + what + ", not '" + given.get(name) + "'");
    }
  }

  public Map<String, String> used() {
    return Map.copyOf(used);
  }
}
