package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.errors.ErrorTable;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.wire.OutcomeEncoder;
import org.jspecify.annotations.Nullable;

/**
 * What a request is answered with, rendered in one place: the route's JSON, or a refusal as the
 * error table words it (its contract code, message and HTTP status). A door only frames it.
 */
public sealed interface Answer {
  /**
   * The route's answer: its body, encoded to JSON when a door asks for the bytes (at most once). A
   * door that reads the answer's fields instead (the Eureka door answers a registration 204)
   * takes the typed body and nothing is encoded.
   */
  final class Served implements Answer {
    private final @Nullable Object body;
    private volatile byte @Nullable [] json;

    /** An answer encoded already (a cached snapshot, say). */
    public Served(byte[] json) {
      this.body = null;
      this.json = json;
    }

    private Served(Object body) {
      this.body = body;
    }

    /** The answer's JSON, encoded on the first call. */
    public byte[] json() {
      byte[] encoded = json;
      if (encoded == null) {
        encoded = JsonCodec.json().encode(body);
        json = encoded;
      }
      return encoded;
    }

    /** The answer as {@code type}: the body itself when it is one, else its JSON decoded. */
    public <T> T body(Class<T> type) {
      return type.isInstance(body) ? type.cast(body) : JsonCodec.json().decode(json(), type);
    }
  }

  /** A refusal: the contract's code and message, and the status HTTP answers it with. */
  record Refused(WireError error) implements Answer {}

  static Answer json(Object body) {
    return new Served(body);
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
