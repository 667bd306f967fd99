package io.reactiveregistry.loadtest.simulations;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A simulation's scale parameters from the command line ({@code --users 50 --instances 1000}),
 * each with the simulation's own default. What was used is reported with the results.
 */
public final class Params {
  private final Map<String, String> given;
  private final Map<String, String> used = new LinkedHashMap<>();
  private final Map<String, Declaration> declared = new LinkedHashMap<>();

  /** A parameter as the simulation reads it: its name, its type and its default (null: none). */
  public record Declaration(String name, Class<?> type, String defaultValue) {}

  public Params(Map<String, String> given) {
    this.given = Map.copyOf(given);
  }

  public int integer(String name, int fallback) {
    declare(name, int.class, Integer.toString(fallback));
    int value = given.containsKey(name) ? number(name, Integer::parseInt, "a whole number") : fallback;
    used.put(name, Integer.toString(value));
    return value;
  }

  public double decimal(String name, double fallback) {
    declare(name, double.class, Double.toString(fallback));
    double value = given.containsKey(name) ? number(name, Double::parseDouble, "a number") : fallback;
    used.put(name, Double.toString(value));
    return value;
  }

  /** A word, e.g. {@code --service deploy-7}. */
  public String text(String name, String fallback) {
    declare(name, String.class, fallback);
    String value = given.getOrDefault(name, fallback);
    used.put(name, value);
    return value;
  }

  /** A duration in milliseconds on the command line, e.g. {@code --duration-ms 30000}. */
  public Duration millis(String name, long fallbackMillis) {
    declare(name, long.class, Long.toString(fallbackMillis));
    long value = given.containsKey(name) ? number(name, Long::parseLong, "a whole number of milliseconds")
        : fallbackMillis;
    used.put(name, Long.toString(value));
    return Duration.ofMillis(value);
  }

  /** An optional threshold: absent means the assertion is not made. */
  public Double optional(String name) {
    declare(name, double.class, null);
    if (!given.containsKey(name)) {
      return null;
    }
    used.put(name, given.get(name));
    return number(name, Double::parseDouble, "a number");
  }

  private <T> T number(String name, Function<String, T> parse, String what) {
    try {
      return parse.apply(given.get(name).trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be " + what + ", not '" + given.get(name) + "'");
    }
  }

  /** Every parameter the simulation read, in the order it read them, whether given or not. */
  public List<Declaration> declared() {
    return List.copyOf(declared.values());
  }

  private void declare(String name, Class<?> type, String defaultValue) {
    declared.putIfAbsent(name, new Declaration(name, type, defaultValue));
  }

  public Map<String, String> used() {
    return Map.copyOf(used);
  }
}
