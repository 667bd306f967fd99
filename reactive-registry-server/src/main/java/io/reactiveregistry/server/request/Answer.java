package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.errors.ErrorTable;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.wire.OutcomeEncoder;

/**
 * What a request is answered with, rendered in one place: the route's JSON, or a refusal as the
 * error table words it (its contract code, message and HTTP status). A door only frames it.
 */
public sealed interface Answer {
  /** The route's answer, encoded. */
  record Served(byte[] json) implements Answer {}

  /** A refusal: the contract's code and message, and the status HTTP answers it with. */
  record Refused(WireError error) implements Answer {}

  static Answer json(Object body) {
    return new Served(JsonCodec.json().encode(body));
  }

  /** Any failure, through the error table (anything unexpected becomes {@code INTERNAL} with a reference). */
  static Answer refusal(Throwable error) {
    return new Refused(ErrorTable.of(error));
  }

  /** A command's outcome: the core's refusal through the error table, anything else encoded. */
  static Answer of(Outcome outcome) {
    return outcome instanceof Outcome.Refused refused ? new Refused(ErrorTable.of(refused))
        : json(OutcomeEncoder.body(outcome));
  }
}
