package io.reactiveregistry.protocol.rules;

/** A value that breaks a rule of the contract; the message names the field and the rule. */
public final class RuleViolation extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public RuleViolation(String message) {
    super(message);
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this; // a refused value is an answer, not a bug: no stack trace to pay for
  }
}
