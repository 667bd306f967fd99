package io.reactiveregistry.protocol.rules;

import org.jspecify.annotations.Nullable;

/** The naming rule shared by namespace, group, service and cluster names. */
public final class Names {
  public static final int MAX_LENGTH = 256;

  private Names() {}

  /**
   * Returns {@code value}, or {@code fallback} when it is absent.
   *
   * @throws RuleViolation when the name breaks the rule: 1-256 of ASCII letters, digits, {@code -_.:@}
   */
  public static String orDefault(String field, @Nullable String value, String fallback) {
    return value == null ? fallback : require(field, value);
  }

  public static String require(String field, @Nullable String value) {
    if (value == null) {
      throw new RuleViolation(field + " is required");
    }
    if (value.isEmpty() || value.length() > MAX_LENGTH) {
      throw new RuleViolation(field + " must be 1-256 characters long");
    }
    for (int i = 0; i < value.length(); i++) {
      if (!isNameChar(value.charAt(i))) {
        throw new RuleViolation(
            field + " may contain only ASCII letters, digits and -_.:@ (found '" + printable(value.charAt(i)) + "')");
      }
    }
    return value;
  }

  public static boolean isNameChar(char c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
        || c == '-' || c == '_' || c == '.' || c == ':' || c == '@';
  }

  private static String printable(char c) {
    return Character.isISOControl(c) || Character.isWhitespace(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c);
  }
}
