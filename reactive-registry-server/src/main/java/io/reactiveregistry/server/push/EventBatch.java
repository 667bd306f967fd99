package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.message.ServiceEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The events pending together for one subscriber that asked to coalesce, as one {@code BATCH}
 * frame. A reconnect storm makes every returning client's registration an event for every
 * watcher; a watcher that is behind takes them as one frame (one write, one decode) instead of
 * one each. Coalescing leaves out only what a later event in the same batch makes moot, so
 * applying the batch in order gives the same view as applying every event: an instance's change
 * followed by another change (or removal) of the same instance, and anything before a snapshot.
 */
final class EventBatch {
  private static final byte[] OPEN = "{\"type\":\"BATCH\",\"revision\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENTS = ",\"events\":[".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLOSE = "]}".getBytes(StandardCharsets.US_ASCII);

  private EventBatch() {}

  /** The events that still matter once all of them are applied, in their order. */
  static List<OutboundEvent> coalesced(List<OutboundEvent> events) {
    List<OutboundEvent> kept = new ArrayList<>(events.size());
    Set<String> changedLater = new HashSet<>();
    for (int i = events.size() - 1; i >= 0; i--) {
      OutboundEvent event = events.get(i);
      ServiceEvent message = event.message();
      String instanceId = instanceOf(message);
      if (instanceId == null || changedLater.add(instanceId)) {
        kept.add(event);
      }
      if (ServiceEvent.SNAPSHOT.equals(message.type())) {
        break; // a snapshot replaces the view: what came before it is moot
      }
    }
    Collections.reverse(kept);
    return kept;
  }

  /**
   * One {@code BATCH} frame of the events (two or more), each the bytes it would have had alone:
   * shared encodings are copied, not encoded again, once each, into an array of the frame's exact
   * size (a reconnect storm builds one such frame per watcher per turn).
   */
  static byte[] encode(List<OutboundEvent> events) {
    byte[] revision = Long.toString(events.get(events.size() - 1).message().revision())
        .getBytes(StandardCharsets.US_ASCII);
    int size = OPEN.length + revision.length + EVENTS.length + (events.size() - 1) + CLOSE.length;
    for (OutboundEvent event : events) {
      size += event.bytes().length;
    }
    byte[] frame = new byte[size];
    int at = put(OPEN, frame, 0);
    at = put(revision, frame, at);
    at = put(EVENTS, frame, at);
    for (int i = 0; i < events.size(); i++) {
      if (i > 0) {
        frame[at++] = ',';
      }
      at = put(events.get(i).bytes(), frame, at);
    }
    put(CLOSE, frame, at);
    return frame;
  }

  private static int put(byte[] bytes, byte[] frame, int at) {
    System.arraycopy(bytes, 0, frame, at, bytes.length);
    return at + bytes.length;
  }

  private static @Nullable String instanceOf(ServiceEvent message) {
    return switch (message.type()) {
      case ServiceEvent.UPSERT -> message.instance().instanceId();
      case ServiceEvent.REMOVE -> message.instanceId();
      default -> null;
    };
  }
}
