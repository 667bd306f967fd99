package io.reactiveregistry.server.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * A {@code service.subscribe} stream as server-sent events: each event as {@code data:} (the same
 * JSON an RSocket subscriber receives), its type as {@code event:}, and {@code id: <node>:<revision>},
 * which a client that reconnects sends back as {@code Last-Event-ID} to resume within the server's
 * history (browsers' {@code EventSource} does it by itself).
 */
final class ServerSentEvents {
  static final String CONTENT_TYPE = "text/event-stream; charset=utf-8";
  private static final JsonFactory fields = new JsonFactory();
  /** The most events one gathered write carries. */
  private static final int GATHERED_AT_MOST = 256;

  private ServerSentEvents() {}

  /** Where a watch resumes: the node whose revisions the stream carried, and the last revision seen. */
  record Position(String node, long revision) {
    /** A {@code Last-Event-ID}; null for none. */
    static @Nullable Position parse(@Nullable String lastEventId) {
      if (lastEventId == null || lastEventId.isBlank()) {
        return null;
      }
      int colon = lastEventId.lastIndexOf(':');
      try {
        if (colon > 0) {
          return new Position(lastEventId.substring(0, colon), Long.parseLong(lastEventId.substring(colon + 1)));
        }
      } catch (NumberFormatException e) {
        // refused below
      }
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "Last-Event-ID must be an id this stream sent, <node>:<revision>, "
          + "not '" + lastEventId + "'");
    }
  }

  /**
   * A view's events, framed with their type and {@code <node>:<revision>} id; with a non-zero
   * {@code gather}, those that arrive within it are written together (see {@link #gathered}).
   */
  static Flux<String> of(Flux<byte[]> events, Duration keepAlive, Duration gather) {
    AtomicReference<String> node = new AtomicReference<>("");
    return keptAlive(gathered(events.map(json -> frame(json, node)), gather), keepAlive);
  }

  /** Events without revisions of their own (the audit trail): {@code event: <name>} and {@code data:}. */
  static Flux<String> named(String name, Flux<byte[]> events, Duration keepAlive, Duration gather) {
    return keptAlive(gathered(events.map(json -> "event: " + name + "\ndata: "
        + new String(json, StandardCharsets.UTF_8) + "\n\n"), gather), keepAlive);
  }

  /**
   * The events that arrive within {@code gather} of the first, as one write: each write to an HTTP
   * connection is a hand-off to its event loop and a system call, and a watcher that needs the
   * view, not each step (a dashboard), should not cost one per change. Waits for demand rather
   * than dropping, like the stream it gathers.
   */
  private static Flux<String> gathered(Flux<String> framed, Duration gather) {
    return gather.isZero() ? framed
        : framed.bufferTimeout(GATHERED_AT_MOST, gather, true).map(frames -> String.join("", frames));
  }

  /** The framed events, and a comment line every {@code keepAlive} until they end. */
  private static Flux<String> keptAlive(Flux<String> framed, Duration keepAlive) {
    Sinks.Empty<Void> ended = Sinks.empty();
    return Flux.merge(framed.doFinally(signal -> ended.tryEmitEmpty()),
        Flux.interval(keepAlive, keepAlive).map(tick -> ": keep-alive\n\n").takeUntilOther(ended.asMono()));
  }

  /**
   * The event's {@code id:} and {@code event:} lines before its JSON. Read with Jackson's streaming
   * parser, the top level only (an instance or a snapshot's instances are skipped, not built): this
   * runs for each event and each HTTP watcher.
   */
  private static String frame(byte[] json, AtomicReference<String> node) {
    String type = "";
    long revision = 0;
    try (JsonParser parser = fields.createParser(json)) {
      parser.nextToken(); // the event's object
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "type" -> type = parser.getText();
          case "revision" -> revision = parser.getLongValue();
          case "node" -> {
            if (value != JsonToken.VALUE_NULL) {
              node.set(parser.getText());
            }
          }
          case "events" -> nodeOfBatch(parser, node); // a BATCH may begin with the stream's SNAPSHOT
          default -> parser.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return "id: " + node.get() + ":" + revision + "\n"
        + "event: " + type + "\n"
        + "data: " + new String(json, StandardCharsets.UTF_8) + "\n\n";
  }

  /** The node named by an event of a BATCH's {@code events} (the parser at the array's start). */
  private static void nodeOfBatch(JsonParser parser, AtomicReference<String> node) throws IOException {
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      parser.skipChildren();
      return;
    }
    while (parser.nextToken() == JsonToken.START_OBJECT) {
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if (field.equals("node") && value != JsonToken.VALUE_NULL) {
          node.set(parser.getText());
        } else {
          parser.skipChildren();
        }
      }
    }
  }
}
