package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.message.ServiceEvent;
import java.io.ByteArrayOutputStream;
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
   * shared encodings are copied, not encoded again.
   */
  static byte[] encode(List<OutboundEvent> events) {
    int size = OPEN.length + 20 + EVENTS.length + CLOSE.length + events.size();
    for (OutboundEvent event : events) {
      size += event.bytes().length;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(size);
    out.writeBytes(OPEN);
    out.writeBytes(Long.toString(events.get(events.size() - 1).message().revision())
        .getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(EVENTS);
    for (int i = 0; i < events.size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(events.get(i).bytes());
    }
    out.writeBytes(CLOSE);
    return out.toByteArray();
  }

  private static @Nullable String instanceOf(ServiceEvent message) {
    return switch (message.type()) {
      case ServiceEvent.UPSERT -> message.instance().instanceId();
      case ServiceEvent.REMOVE -> message.instanceId();
      default -> null;
    };
  }
}
