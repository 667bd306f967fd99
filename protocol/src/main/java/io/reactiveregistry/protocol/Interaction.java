package io.reactiveregistry.protocol;

/** The RSocket interaction model a route must be called with. */
public enum Interaction {
  REQUEST_RESPONSE("request-response"),
  FIRE_AND_FORGET("fire-and-forget"),
  REQUEST_STREAM("request-stream"),
  /** No route uses it; named so that a request-channel call can be told which interaction to use. */
  REQUEST_CHANNEL("request-channel");

  private final String wireName;

  Interaction(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in PROTOCOL.md and in error messages, e.g. {@code request-response}. */
  public String wireName() {
    return wireName;
  }
}
