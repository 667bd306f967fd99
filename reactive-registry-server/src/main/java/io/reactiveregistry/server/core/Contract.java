package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.RuleViolation;
import java.util.function.Supplier;

/** Applies the contract's value rules (shared with the client) and reports a violation as the core's refusal. */
final class Contract {
  private Contract() {}

  static <T> T check(Supplier<T> validated) {
    try {
      return validated.get();
    } catch (RuleViolation violation) {
      throw RegistryException.invalid(violation.getMessage());
    }
  }
}
