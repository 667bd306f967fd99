package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ServiceView;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.wire.WireViews;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Encoded answers to {@code service.query}. A view changes only when its service does, so the
 * encoded instances are kept per view and reused while the service's own revision stays the same;
 * only the server-wide revision, which the contract requires in every snapshot, is written anew.
 * Queries of a busy service then cost a map lookup and a copy instead of a view and a JSON
 * encoding.
 */
final class SnapshotCache {
  private record Key(ServiceKey service, ViewFilter filter) {}

  /** Everything of a ServiceSnapshot but its names and revision. */
  private record Tail(boolean ephemeral, boolean protectionTriggered, List<InstanceBody> instances) {}

  private record Entry(long serviceRevision, byte[] tail) {}

  private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();
  private final int maxEntries;

  SnapshotCache(int maxEntries) {
    this.maxEntries = maxEntries;
  }

  /** What one read under the monitor found: the cached entry, or the view to encode. */
  private record Lookup(long revision, long serviceRevision, Entry hit, ServiceView miss) {}

  /** The JSON of a ServiceSnapshot of the view, at the current revision. */
  byte[] query(RegistryRuntime runtime, ServiceKey service, ViewFilter filter) {
    Key key = new Key(service, filter);
    Lookup found = runtime.read(registry -> {
      long serviceRevision = registry.serviceRevision(service);
      Entry entry = entries.get(key);
      boolean fresh = entry != null && serviceRevision >= 0 && entry.serviceRevision == serviceRevision;
      return new Lookup(registry.revision(), serviceRevision, fresh ? entry : null,
          fresh ? null : registry.view(service, filter));
    });
    if (found.hit() != null) {
      return assemble(service, found.revision(), found.hit().tail());
    }
    byte[] tail = tail(found.miss()); // encoded outside the monitor
    if (found.serviceRevision() >= 0) {
      if (entries.size() >= maxEntries) {
        entries.clear(); // rare: far more distinct views than services; start over rather than grow
      }
      entries.put(key, new Entry(found.serviceRevision(), tail));
    }
    return assemble(service, found.revision(), tail);
  }

  private static byte[] tail(ServiceView view) {
    List<InstanceBody> instances = new ArrayList<>(view.instances().size());
    for (InstanceView instance : view.instances()) {
      instances.add(WireViews.instance(instance));
    }
    return JsonCodec.json().encode(new Tail(view.ephemeral(), view.protectionTriggered(), instances));
  }

  /**
   * {@code {"namespace":..,"group":..,"service":..,"revision":N,} + the tail without its opening
   * brace}. Names need no JSON escaping: the naming rule allows only letters, digits and -_.:@.
   */
  private static byte[] assemble(ServiceKey service, long revision, byte[] tail) {
    String head = "{\"namespace\":\"" + service.namespace() + "\",\"group\":\"" + service.group()
        + "\",\"service\":\"" + service.service() + "\",\"revision\":" + revision + ",";
    ByteArrayOutputStream out = new ByteArrayOutputStream(head.length() + tail.length);
    out.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
    out.write(tail, 1, tail.length - 1);
    return out.toByteArray();
  }
}
