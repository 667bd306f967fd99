package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.wire.WireViews;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whole catalogs and their recent changes, read under the runtime's monitor so that a delta and
 * the catalog it leads to are one cut. A service's snapshot is built again only when the service
 * changed (its revision moved), so a burst of registrations costs a snapshot of each service
 * touched, not of the catalog; a catalog whose revision has not moved is answered as it was.
 * Every field is used under the monitor only.
 */
final class CatalogReads {
  private final RegistryRuntime runtime;
  private final InstantSource clock;
  private final RecentChanges recent;
  /** Each service's snapshot, with the service's revision it was built at. */
  private final Map<ServiceKey, Built> snapshots = new HashMap<>();
  private final Map<String, Catalog> catalogs = new HashMap<>();
  /**
   * The last delta read of each namespace and group, with the revision and the kept changes'
   * generation it was read at: every polling Eureka client asks for the same one, and putting it
   * together walks every change of the window (15,000 of them after a fleet's restart: 3 ms of
   * CPU a poll, nine tenths of it).
   */
  private final Map<String, KeptDelta> deltas = new HashMap<>();

  private record Built(long serviceRevision, ServiceSnapshot snapshot) {}

  private record KeptDelta(long revision, long generation, Catalog.Delta delta) {}

  CatalogReads(RegistryRuntime runtime, InstantSource clock, long windowMillis, int maxChanges) {
    this.runtime = runtime;
    this.clock = clock;
    this.recent = new RecentChanges(windowMillis, maxChanges);
    runtime.addListener(events -> recent.record(events, clock.millis()));
  }

  Catalog catalog(String namespace, String group) {
    return runtime.read(reads -> {
      recent.readAt(clock.millis());
      return catalog(reads, namespace, group);
    });
  }

  Catalog.Delta delta(String namespace, String group) {
    return runtime.read(reads -> {
      long nowMillis = clock.millis();
      long generation = recent.generation(nowMillis);
      recent.readAt(nowMillis);
      String name = namespace + '\u0000' + group;
      KeptDelta kept = deltas.get(name);
      if (kept != null && kept.revision() == reads.revision() && kept.generation() == generation) {
        return kept.delta();
      }
      List<RecentChanges.Change> recentChanges = recent.of(namespace, group, nowMillis);
      Catalog catalog = catalog(reads, namespace, group);
      Map<String, Map<String, InstanceBody>> current = new HashMap<>();
      List<Catalog.Change> changes = new ArrayList<>();
      for (RecentChanges.Change change : recentChanges) {
        String service = change.service().service();
        if (change.removed() != null) {
          changes.add(new Catalog.Change(service, Catalog.ChangeKind.DELETED, change.removed()));
          continue;
        }
        InstanceBody now = current.computeIfAbsent(service, key -> instancesOf(catalog, key)).get(change.instanceId());
        if (now != null) { // else its service went with it (deleted), and the removal follows
          changes.add(new Catalog.Change(service, change.added() ? Catalog.ChangeKind.ADDED
              : Catalog.ChangeKind.MODIFIED, now));
        }
      }
      Catalog.Delta delta = new Catalog.Delta(catalog, changes);
      deltas.put(name, new KeptDelta(reads.revision(), generation, delta));
      return delta;
    });
  }

  private Catalog catalog(RegistryReads reads, String namespace, String group) {
    String name = namespace + '\u0000' + group;
    long revision = reads.revision();
    Catalog known = catalogs.get(name);
    if (known != null && known.revision() == revision) {
      return known;
    }
    List<ServiceKey> listed = reads.keys(namespace, group);
    List<ServiceSnapshot> services = new ArrayList<>(listed.size());
    for (ServiceKey key : listed) {
      long serviceRevision = reads.serviceRevision(key);
      Built built = snapshots.get(key);
      if (built == null || built.serviceRevision() != serviceRevision) {
        built = new Built(serviceRevision, WireViews.snapshot(reads.view(key, ViewFilter.ALL)));
        snapshots.put(key, built);
      }
      services.add(built.snapshot());
    }
    if (known != null) { // snapshots of services gone since the last read go too
      for (ServiceSnapshot before : known.services()) {
        ServiceKey key = ServiceKey.of(before.namespace(), before.group(), before.service());
        if (!reads.exists(key)) {
          snapshots.remove(key);
        }
      }
    }
    Catalog catalog = new Catalog(namespace, group, revision, List.copyOf(services));
    catalogs.put(name, catalog);
    return catalog;
  }

  private static Map<String, InstanceBody> instancesOf(Catalog catalog, String service) {
    Map<String, InstanceBody> byId = new HashMap<>();
    for (ServiceSnapshot snapshot : catalog.services()) {
      if (snapshot.service().equals(service)) {
        snapshot.instances().forEach(instance -> byId.put(instance.instanceId(), instance));
      }
    }
    return byId;
  }
}
