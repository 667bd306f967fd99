package io.reactiveregistry.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.MalformedBodyException;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.codec.TraceMetadata;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.rsocket.Payload;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.util.ByteBufPayload;
import reactor.util.context.ContextView;

/** Bodies to payloads and back, and wire errors to typed exceptions: the client's one mapping. */
final class Wire {
  private static final JsonCodec json = JsonCodec.json();

  private Wire() {}

  static Payload payload(String route, Object body) {
    return payload(route, json.encode(body));
  }

  /** A payload of JSON encoded earlier, e.g. a heartbeat whose body never changes. */
  static Payload payload(String route, byte[] encodedJson) {
    return ByteBufPayload.create(Unpooled.wrappedBuffer(encodedJson),
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, route));
  }

  /**
   * A request's payload in the trace the subscriber's Reactor context names ({@link
   * RegistryClient#inTrace}), if it names one: the route and the trace context's entry.
   */
  static Payload payload(String route, Object body, ContextView context) {
    TraceParent trace = context.getOrDefault(TraceParent.class, null);
    if (trace == null) {
      return payload(route, body);
    }
    ByteBuf routing = RouteMetadata.encode(ByteBufAllocator.DEFAULT, route);
    CompositeByteBuf metadata = routing instanceof CompositeByteBuf composite ? composite
        : ByteBufAllocator.DEFAULT.compositeBuffer().addComponent(true, routing);
    TraceMetadata.add(metadata, ByteBufAllocator.DEFAULT, trace);
    return ByteBufPayload.create(Unpooled.wrappedBuffer(json.encode(body)), metadata);
  }

  static byte[] encode(Object body) {
    return json.encode(body);
  }

  static <T> T decode(Payload payload, Class<T> type) {
    try {
      return json.decode(payload.sliceData(), type);
    } finally {
      payload.release();
    }
  }

  /**
   * A contract error as {@link RegistryErrorException}, by its code, never by its text; a request
   * that timed out (no connection in time, or no answer in time) as
   * {@link RegistryUnavailableException}, whichever of the two timeouts fired first.
   */
  static Throwable translate(Throwable error) {
    if (error instanceof java.util.concurrent.TimeoutException) {
      return new RegistryUnavailableException("no answer from a registry server in time: " + error.getMessage(),
          error);
    }
    if (error instanceof ApplicationErrorException wire) {
      try {
        ErrorBody body = json.decode(wire.getMessage(), ErrorBody.class);
        return new RegistryErrorException(code(body.code()), body.message());
      } catch (MalformedBodyException notJson) {
        return new RegistryErrorException(ErrorCode.INTERNAL, wire.getMessage());
      }
    }
    return error;
  }

  /** True for the errors a contract refusal produces; false for a lost connection. */
  static boolean isRefusal(Throwable error) {
    return error instanceof ApplicationErrorException || error instanceof RegistryErrorException;
  }

  private static ErrorCode code(String code) {
    try {
      return ErrorCode.valueOf(code);
    } catch (IllegalArgumentException | NullPointerException unknown) {
      return ErrorCode.INTERNAL; // a code added by a newer server
    }
  }
}
