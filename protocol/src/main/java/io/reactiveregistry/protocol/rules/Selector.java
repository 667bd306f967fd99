package io.reactiveregistry.protocol.rules;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A selector over instance metadata: which instances of a service a view shows, beside its
 * clusters and health. The grammar is Kubernetes' label selector's, which operators already know:
 *
 * <pre>
 * selector    = requirement *( "," requirement )
 * requirement = key ( "=" | "==" | "!=" ) value
 *             / key ( "in" | "notin" ) "(" value *( "," value ) ")"
 *             / key                     ; the key is present
 *             / "!" key                 ; the key is absent
 * key, value  = 1*( ALPHA / DIGIT / "-" / "_" / "." / ":" / "@" / "/" / "+" )
 *             / DQUOTE *( any character but DQUOTE and "\" / "\" DQUOTE / "\\" ) DQUOTE
 * </pre>
 *
 * Every requirement must hold. As in Kubernetes, {@code !=} and {@code notin} also hold for an
 * instance without the key. Spaces between tokens are ignored. Two selectors with the same
 * requirements, in any order, are equal, so their subscribers share one view.
 */
public final class Selector {
  public static final int MAX_LENGTH = 1024;
  public static final int MAX_REQUIREMENTS = 32;

  /** One requirement: a key, an operator and (for the operators that take them) its values. */
  public record Requirement(String key, Operator operator, SortedSet<String> values) implements Comparable<Requirement> {
    public Requirement {
      values = Collections.unmodifiableSortedSet(new TreeSet<>(values));
    }

    boolean matches(Map<String, String> metadata) {
      String value = metadata.get(key);
      return switch (operator) {
        case EQUALS, IN -> value != null && values.contains(value);
        case NOT_EQUALS, NOT_IN -> value == null || !values.contains(value);
        case EXISTS -> value != null;
        case DOES_NOT_EXIST -> value == null;
      };
    }

    @Override
    public int compareTo(Requirement other) {
      return toString().compareTo(other.toString());
    }

    @Override
    public String toString() {
      return switch (operator) {
        case EQUALS -> quoted(key) + "=" + quoted(values.first());
        case NOT_EQUALS -> quoted(key) + "!=" + quoted(values.first());
        case IN, NOT_IN -> quoted(key) + (operator == Operator.IN ? " in (" : " notin (")
            + String.join(",", values.stream().map(Selector::quoted).toList()) + ")";
        case EXISTS -> quoted(key);
        case DOES_NOT_EXIST -> "!" + quoted(key);
      };
    }
  }

  public enum Operator { EQUALS, NOT_EQUALS, IN, NOT_IN, EXISTS, DOES_NOT_EXIST }

  private static final Selector EVERYTHING = new Selector(List.of());

  private final List<Requirement> requirements;
  private final String canonical;

  private Selector(List<Requirement> requirements) {
    this.requirements = requirements;
    this.canonical = String.join(",", requirements.stream().map(Requirement::toString).toList());
  }

  /** The selector that selects every instance. */
  public static Selector everything() {
    return EVERYTHING;
  }

  /**
   * Parses {@code text}; null or blank selects everything.
   *
   * @throws RuleViolation naming {@code field}, the position (from 1) and what was expected there
   */
  public static Selector parse(String field, @Nullable String text) {
    if (text == null || text.isBlank()) {
      return EVERYTHING;
    }
    if (text.length() > MAX_LENGTH) {
      throw new RuleViolation(field + " must be at most " + MAX_LENGTH + " characters long (is " + text.length() + ")");
    }
    return new Parser(field, text).selector();
  }

  public List<Requirement> requirements() {
    return requirements;
  }

  public boolean selectsEverything() {
    return requirements.isEmpty();
  }

  /** Whether an instance with this metadata is selected. */
  public boolean matches(Map<String, String> metadata) {
    for (Requirement requirement : requirements) {
      if (!requirement.matches(metadata)) {
        return false;
      }
    }
    return true;
  }

  /** The canonical text: requirements sorted, values sorted, no spaces but around {@code in}. */
  @Override
  public String toString() {
    return canonical;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Selector selector && selector.canonical.equals(canonical);
  }

  @Override
  public int hashCode() {
    return canonical.hashCode();
  }

  private static boolean isBareChar(char c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
        || c == '-' || c == '_' || c == '.' || c == ':' || c == '@' || c == '/' || c == '+';
  }

  private static String quoted(String word) {
    boolean bare = !word.isEmpty() && !word.equals("in") && !word.equals("notin");
    for (int i = 0; bare && i < word.length(); i++) {
      bare = isBareChar(word.charAt(i));
    }
    return bare ? word : "\"" + word.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** A recursive-descent parser over the text; positions in messages count from 1. */
  private static final class Parser {
    private final String field;
    private final String text;
    private int at;

    Parser(String field, String text) {
      this.field = field;
      this.text = text;
    }

    Selector selector() {
      TreeSet<Requirement> requirements = new TreeSet<>();
      do {
        requirements.add(requirement());
        if (requirements.size() > MAX_REQUIREMENTS) {
          throw new RuleViolation(field + " may have at most " + MAX_REQUIREMENTS + " requirements");
        }
        skipSpaces();
      } while (take(','));
      if (at < text.length()) {
        throw error("expected ',' or the end");
      }
      return new Selector(List.copyOf(requirements));
    }

    private Requirement requirement() {
      skipSpaces();
      if (take('!')) {
        return new Requirement(word("a key after '!'"), Operator.DOES_NOT_EXIST, new TreeSet<>());
      }
      String key = word("a key");
      skipSpaces();
      if (take('!')) {
        if (!take('=')) {
          throw error("expected '=' after '!'");
        }
        return new Requirement(key, Operator.NOT_EQUALS, single(key));
      }
      if (take('=')) {
        take('=');
        return new Requirement(key, Operator.EQUALS, single(key));
      }
      if (startsWithWord("notin")) {
        at += "notin".length();
        return new Requirement(key, Operator.NOT_IN, set(key));
      }
      if (startsWithWord("in")) {
        at += "in".length();
        return new Requirement(key, Operator.IN, set(key));
      }
      if (at == text.length() || text.charAt(at) == ',') {
        return new Requirement(key, Operator.EXISTS, new TreeSet<>());
      }
      throw error("expected '=', '==', '!=', 'in', 'notin', ',' or the end after key '" + key + "'");
    }

    private TreeSet<String> single(String key) {
      skipSpaces();
      TreeSet<String> values = new TreeSet<>();
      values.add(word("a value for '" + key + "'"));
      return values;
    }

    private TreeSet<String> set(String key) {
      skipSpaces();
      if (!take('(')) {
        throw error("expected '(' to open the values of '" + key + "'");
      }
      TreeSet<String> values = new TreeSet<>();
      do {
        skipSpaces();
        values.add(word("a value for '" + key + "'"));
        skipSpaces();
      } while (take(','));
      if (!take(')')) {
        throw error("expected ',' or ')' in the values of '" + key + "'");
      }
      return values;
    }

    /** A bare word or a quoted string. */
    private String word(String expected) {
      skipSpaces();
      if (at < text.length() && text.charAt(at) == '"') {
        return quotedWord();
      }
      int start = at;
      while (at < text.length() && isBareChar(text.charAt(at))) {
        at++;
      }
      if (start == at) {
        throw error("expected " + expected);
      }
      return text.substring(start, at);
    }

    private String quotedWord() {
      int open = at++;
      StringBuilder word = new StringBuilder();
      while (at < text.length()) {
        char c = text.charAt(at++);
        if (c == '"') {
          return word.toString();
        }
        if (c == '\\') {
          if (at == text.length() || text.charAt(at) != '"' && text.charAt(at) != '\\') {
            throw error("expected '\"' or '\\' after '\\'");
          }
          c = text.charAt(at++);
        }
        word.append(c);
      }
      at = open;
      throw error("the quoted string opened here is not closed");
    }

    private boolean startsWithWord(String word) {
      int end = at + word.length();
      return text.startsWith(word, at) && (end == text.length() || !isBareChar(text.charAt(end)));
    }

    private boolean take(char c) {
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    private void skipSpaces() {
      while (at < text.length() && text.charAt(at) == ' ') {
        at++;
      }
    }

    private RuleViolation error(String expected) {
      String found = at < text.length() ? "'" + text.charAt(at) + "'" : "the end";
      return new RuleViolation(field + " is not a valid selector: at position " + (at + 1) + ", " + expected
          + " (found " + found + ")");
    }
  }
}
