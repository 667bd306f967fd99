package io.reactiveregistry.protocol.rules;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A point in time as a person types it for a history query: an age ({@code 90s}, {@code 15m},
 * {@code 1h}, {@code 2d}: that long before now), an ISO-8601 instant
 * ({@code 2026-12-04T03:00:00Z}), or epoch milliseconds. The CLI and the HTTP API read it the same
 * way; the wire carries epoch milliseconds.
 */
public final class TimeBounds {
  private static final Pattern AGE = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  private TimeBounds() {}

  /** Epoch milliseconds of {@code text} relative to {@code nowMillis}; null when {@code text} is null or empty. */
  public static @Nullable Long parse(String field, @Nullable String text, long nowMillis) {
    if (text == null || text.isBlank()) {
      return null;
    }
    String value = text.strip();
    Matcher age = AGE.matcher(value);
    if (age.matches()) {
      long amount = Long.parseLong(age.group(1));
      Duration duration = switch (age.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
      return nowMillis - duration.toMillis();
    }
    if (value.chars().allMatch(Character::isDigit) && value.length() <= 15) {
      return Long.parseLong(value);
    }
    try {
      return Instant.parse(value).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new RuleViolation(field + " '" + text + "' is not a time: give an age (90s, 15m, 1h, 2d), an ISO-8601 "
          + "instant (2026-12-04T03:00:00Z) or epoch milliseconds");
    }
  }
}
