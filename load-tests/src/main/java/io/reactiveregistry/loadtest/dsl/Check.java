package io.reactiveregistry.loadtest.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import io.reactiveregistry.loadtest.engine.VirtualUser;
import io.reactiveregistry.protocol.codec.JsonCodec;

/**
 * A check on an answer, Gatling's {@code check(...)}: a request whose answer fails it counts as
 * failed, with the reason in the errors table. Paths are JSON Pointers ({@code /instances/0/ip}).
 *
 * <pre>{@code
 * queryChecked("orders", Check.size("/instances").is(3), Check.path("/instances/0/ip").is("127.0.0.5"),
 *     Check.revisionGrows())
 * }</pre>
 */
@FunctionalInterface
public interface Check {
  /** Why the answer is wrong, or null when it passes. */
  String verify(JsonNode answer, VirtualUser user);

  /** The text at a JSON Pointer. */
  static Value path(String pointer) {
    return new Value(pointer);
  }

  /** The number of elements of the array at a JSON Pointer. */
  static Size size(String pointer) {
    return new Size(pointer);
  }

  /** The answer's {@code revision} is above the last one this user's checked requests saw. */
  static Check revisionGrows() {
    return (answer, user) -> {
      long revision = answer.path("revision").asLong(-1);
      Object last = user.session().put("lt.checked-revision", revision);
      return last == null || revision > (Long) last ? null
          : "revision " + revision + " is not above the " + last + " seen before";
    };
  }

  record Value(String pointer) {
    public Check is(String expected) {
      return (answer, user) -> {
        JsonNode found = answer.at(pointer);
        return !found.isMissingNode() && expected.equals(found.asText()) ? null
            : pointer + " is " + (found.isMissingNode() ? "missing" : "'" + found.asText() + "'") + ", not '"
                + expected + "'";
      };
    }
  }

  record Size(String pointer) {
    public Check is(int expected) {
      return (answer, user) -> {
        JsonNode found = answer.at(pointer);
        int size = found.isArray() ? found.size() : -1;
        return size == expected ? null
            : pointer + " has " + (size < 0 ? "no array" : size + " elements") + ", not " + expected;
      };
    }
  }

  /** Runs the checks on an answer: the first reason it is wrong, or null. */
  static String all(String answer, VirtualUser user, Check... checks) {
    JsonNode json;
    try {
      json = JsonCodec.json().decode(answer, JsonNode.class);
    } catch (RuntimeException e) {
      return "the answer is not JSON: " + e.getMessage();
    }
    for (Check check : checks) {
      String wrong = check.verify(json, user);
      if (wrong != null) {
        return wrong;
      }
    }
    return null;
  }
}
