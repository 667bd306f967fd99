package io.reactiveregistry.cli;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.transport.ClientTransport;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** One RSocket connection to the registry: a route in composite metadata and a JSON body per request. */
final class Session implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final RSocket rsocket;

  private Session(RSocket rsocket) {
    this.rsocket = rsocket;
  }

  /**
   * Connects, presenting {@code client} and, when given, the token in the SETUP.
   *
   * @throws Unreachable when no connection is made within {@link #TIMEOUT}
   */
  static Session open(ClientTransport transport, String client, @Nullable String token) {
    String data = "{\"client\":\"" + client.replace("\"", "") + "\"}";
    Payload setup = token == null || token.isEmpty() ? DefaultPayload.create(data) : ByteBufPayload.create(
        Unpooled.copiedBuffer(data, StandardCharsets.UTF_8), BearerMetadata.composite(ByteBufAllocator.DEFAULT, token));
    try {
      RSocket rsocket = RSocketConnector.create()
          .dataMimeType(Protocol.DATA_MIME_TYPE)
          .metadataMimeType(Protocol.METADATA_MIME_TYPE)
          .setupPayload(setup)
          .connect(transport)
          .block(TIMEOUT);
      return new Session(rsocket);
    } catch (RuntimeException e) {
      throw new Unreachable(e);
    }
  }

  String request(String route, String json) {
    return request(route, json, TIMEOUT);
  }

  /** A request whose answer may take longer than most (a membership change). */
  String request(String route, String json, Duration timeout) {
    return rsocket.requestResponse(payload(route, json)).map(Session::text).block(timeout);
  }

  void fire(String route, String json) {
    rsocket.fireAndForget(payload(route, json)).block(TIMEOUT);
  }

  /**
   * Fires {@code json} on {@code route} every {@code interval} until the connection closes or the
   * returned handle is disposed: an ephemeral instance's heartbeats while the command holds it.
   */
  Disposable every(Duration interval, String route, String json) {
    return Flux.interval(interval, interval)
        .onBackpressureDrop()
        .concatMap(tick -> rsocket.fireAndForget(payload(route, json)).onErrorResume(error -> Mono.empty()), 1)
        .takeUntilOther(rsocket.onClose())
        .subscribe();
  }

  Flux<String> stream(String route, String json) {
    return rsocket.requestStream(payload(route, json)).map(Session::text);
  }

  /** A stream's payloads as bytes (a backup file's pieces). */
  Flux<byte[]> bytes(String route, String json) {
    return rsocket.requestStream(payload(route, json)).map(payload -> {
      try {
        byte[] data = new byte[payload.data().readableBytes()];
        payload.data().getBytes(payload.data().readerIndex(), data);
        return data;
      } finally {
        payload.release();
      }
    });
  }

  /** Completes when the server closes the connection. */
  Mono<Void> onClose() {
    return rsocket.onClose();
  }

  @Override
  public void close() {
    rsocket.dispose();
  }

  private static Payload payload(String route, String json) {
    return ByteBufPayload.create(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8),
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, route));
  }

  private static String text(Payload payload) {
    try {
      return payload.getDataUtf8();
    } finally {
      payload.release();
    }
  }

  /** No connection to the target. */
  static final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreachable(Throwable cause) {
      super(innermost(cause), cause);
    }

    /** "Connection refused: /127.0.0.1:7070", not the wrappers around it. */
    private static String innermost(Throwable error) {
      Throwable root = error;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      String message = root.getMessage() == null ? root.toString() : root.getMessage();
      int detail = message.lastIndexOf("): ");
      return detail >= 0 ? message.substring(detail + 3) : message;
    }
  }
}
