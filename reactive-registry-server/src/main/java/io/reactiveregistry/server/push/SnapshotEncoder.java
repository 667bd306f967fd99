package io.reactiveregistry.server.push;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.wire.WireViews;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes one view's SNAPSHOTs from each instance's JSON, encoded once for as long as the instance
 * stays as it is. Subscribers asking at the same revision already share one snapshot; but in a
 * reconnect storm the view changes between any two subscriptions (each returning client registers
 * too), and encoding the whole view afresh for each was the largest part of a 5,000-client storm's
 * own work (11 % of the server's CPU, RESULTS.md). The bytes are exactly those {@link JsonCodec}
 * writes for the whole event: its envelope (the event with no instances) with the instances'
 * JSON, joined, in place of the empty list.
 *
 * <p>Safe on several threads at once: a snapshot is encoded by the first thread that sends it,
 * outside the registry's monitor, and two of one view's may be encoded at the same time.
 */
final class SnapshotEncoder {
  private static final byte[] EMPTY_INSTANCES = "\"instances\":[]".getBytes(StandardCharsets.UTF_8);

  /** An instance's JSON, with the instance it was written from. */
  private record Encoded(InstanceView instance, byte[] json) {}

  private final ConcurrentHashMap<String, Encoded> byId = new ConcurrentHashMap<>();

  /** The JSON of {@code snapshot}, whose instances are {@code instances}', in their order. */
  byte[] encode(ServiceEvent snapshot, List<InstanceView> instances) {
    byte[] envelope = JsonCodec.json().encode(withoutInstances(snapshot));
    int at = indexOf(envelope, EMPTY_INSTANCES);
    if (at < 0) { // cannot happen for a SNAPSHOT; the whole event, then
      return JsonCodec.json().encode(snapshot);
    }
    int open = at + EMPTY_INSTANCES.length - 1; // the ']' of the empty list
    ByteArrayOutputStream out = new ByteArrayOutputStream(envelope.length + instances.size() * 256);
    out.write(envelope, 0, open);
    for (int i = 0; i < instances.size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(json(instances.get(i)));
    }
    out.write(envelope, open, envelope.length - open);
    forgetAllBut(instances);
    return out.toByteArray();
  }

  private byte[] json(InstanceView instance) {
    Encoded kept = byId.get(instance.instanceId());
    if (kept != null && kept.instance().equals(instance)) {
      return kept.json();
    }
    byte[] json = JsonCodec.json().encode(WireViews.instance(instance));
    byId.put(instance.instanceId(), new Encoded(instance, json));
    return json;
  }

  /** Keeps what the view holds, once what is kept has grown well past it (instances that left). */
  private void forgetAllBut(List<InstanceView> instances) {
    if (byId.size() <= 2 * instances.size() + 16) {
      return;
    }
    Set<String> current = new HashSet<>(instances.size() * 2);
    for (InstanceView instance : instances) {
      current.add(instance.instanceId());
    }
    byId.keySet().retainAll(current);
  }

  private static ServiceEvent withoutInstances(ServiceEvent e) {
    return new ServiceEvent(e.type(), e.revision(), e.namespace(), e.group(), e.service(), e.ephemeral(),
        e.protectionTriggered(), List.of(), e.instance(), e.instanceId(), e.node(), e.resumed(), e.events());
  }

  /**
   * Where {@code key} starts in {@code bytes}, or -1. A JSON string escapes its quotes, so the
   * key's quoted name can only be found where it is the event's own field.
   */
  private static int indexOf(byte[] bytes, byte[] key) {
    outer:
    for (int i = 0; i + key.length <= bytes.length; i++) {
      for (int j = 0; j < key.length; j++) {
        if (bytes[i + j] != key[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
