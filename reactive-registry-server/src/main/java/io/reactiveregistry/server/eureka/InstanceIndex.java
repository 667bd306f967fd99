package io.reactiveregistry.server.eureka;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.request.Catalog;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Which registry instance an Eureka client means by its application and instance id. The id is the
 * client's choice, kept in the instance's metadata; renewals, the most frequent request, find it
 * here by what this door registered, and anything else by looking through the catalog. The index
 * is only a shortcut: a renewal of an instance it names that the registry no longer holds is looked
 * up again, so what it keeps is never the answer on its own. Bounded: past {@code maxEntries} it
 * starts again empty.
 */
final class InstanceIndex {
  /** An instance and its service's name in the door's namespace and group. */
  record Known(String service, InstanceBody instance) {}

  private final Map<String, Known> known = new ConcurrentHashMap<>();
  private final int maxEntries;

  InstanceIndex(int maxEntries) {
    this.maxEntries = maxEntries;
  }

  @Nullable Known get(String app, String id) {
    return known.get(key(app, id));
  }

  /** Records what an instance id names now; returns what it named before. */
  @Nullable Known put(String app, String id, Known instance) {
    if (known.size() >= maxEntries) {
      known.clear();
    }
    return known.put(key(app, id), instance);
  }

  void remove(String app, String id) {
    known.remove(key(app, id));
  }

  /** The instance an Eureka client means, looked up in the catalog: of {@code app}, or of any application when null. */
  static @Nullable Known find(Catalog catalog, @Nullable String app, String id) {
    for (ServiceSnapshot service : catalog.services()) {
      if (app != null && !EurekaViews.app(service.service()).equals(app.toUpperCase(Locale.ROOT))) {
        continue;
      }
      for (InstanceBody instance : service.instances()) {
        if (EurekaViews.id(instance).equals(id)) {
          return new Known(service.service(), instance);
        }
      }
    }
    return null;
  }

  private static String key(String app, String id) {
    return app.toUpperCase(Locale.ROOT) + '\u0000' + id;
  }
}
