package io.reactiveregistry.loadtest.simulations;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

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
    int value = given.containsKey(name) ? Integer.parseInt(given.get(name)) : fallback;
    used.put(name, Integer.toString(value));
    return value;
  }

  public double decimal(String name, double fallback) {
    double value = given.containsKey(name) ? Double.parseDouble(given.get(name)) : fallback;
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
    long value = given.containsKey(name) ? Long.parseLong(given.get(name)) : fallbackMillis;
    used.put(name, Long.toString(value));
    return Duration.ofMillis(value);
  }

  /** An optional threshold: absent means the assertion is not made. */
  public Double optional(String name) {
    if (!given.containsKey(name)) {
      return null;
    }
    used.put(name, given.get(name));
    return Double.parseDouble(given.get(name));
  }

  public Map<String, String> used() {
    return Map.copyOf(used);
  }
}
