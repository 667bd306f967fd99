package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The last answers of the client's one-off reads (service lists, queried views), kept so that the
 * same reads answer at once while no registry server can be reached instead of failing after the
 * request timeout: what an application's health check or discovery call needs during an outage.
 * Bounded: past {@link #MAX_ENTRIES} entries a map starts again empty.
 */
final class LastSeen {
  static final int MAX_ENTRIES = 10_000;

  private final Map<String, List<ServiceSummary>> lists = new ConcurrentHashMap<>();
  private final Map<Watches.Key, ServiceSnapshot> snapshots = new ConcurrentHashMap<>();

  void services(String namespace, @Nullable String group, List<ServiceSummary> listed) {
    put(lists, listKey(namespace, group), List.copyOf(listed));
  }

  @Nullable List<ServiceSummary> services(String namespace, @Nullable String group) {
    return lists.get(listKey(namespace, group));
  }

  void snapshot(Watches.Key key, ServiceSnapshot snapshot) {
    put(snapshots, key, snapshot);
  }

  /**
   * What the client knows of a view: the last answer to the same query, or the last view a watch of
   * it was pushed, whichever is newer (by revision); null when it knows neither.
   */
  @Nullable ServiceSnapshot snapshot(Watches.Key key, @Nullable ServiceView watched) {
    ServiceSnapshot queried = snapshots.get(key);
    if (watched == null || queried != null && queried.revision() >= watched.revision()) {
      return queried;
    }
    ServiceName service = watched.service();
    // A view does not say whether its service is ephemeral; its instances do.
    boolean ephemeral = queried != null ? queried.ephemeral()
        : watched.instances().stream().map(InstanceBody::ephemeral).noneMatch(Boolean.FALSE::equals);
    return new ServiceSnapshot(service.namespace(), service.group(), service.service(), ephemeral,
        watched.revision(), watched.protectionTriggered(), watched.instances());
  }

  private static String listKey(String namespace, @Nullable String group) {
    return namespace + '\u0000' + (group == null ? "" : group);
  }

  private static <K, V> void put(Map<K, V> map, K key, V value) {
    if (map.size() >= MAX_ENTRIES && !map.containsKey(key)) {
      map.clear();
    }
    map.put(key, value);
  }
}
