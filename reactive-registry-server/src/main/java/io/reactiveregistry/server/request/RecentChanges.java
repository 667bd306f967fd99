package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.core.ChangeCause;
import io.reactiveregistry.server.core.RegistryEvent;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.wire.WireViews;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The instances that changed in the last few minutes, each once with its latest change: what a
 * client that polls for changes (Eureka's {@code GET /apps/delta}) is sent. Fed by the runtime's
 * listener and read through {@code RegistryRuntime.read}, both under its monitor, so a read sees
 * the changes and the state they led to as one cut. Bounded by time ({@code windowMillis}) and by
 * count: a client that misses a change because the bound dropped it finds its copy's hash wrong
 * and fetches the whole catalog, as Eureka's client does.
 *
 * <p>Changes are kept only while somebody reads catalogs: from a catalog or delta read until a
 * window has passed without one. A registry no polling client reads (the common case: its
 * clients are pushed their changes) then pays nothing per change here — keeping every change of
 * the last three minutes was 6 % of a lone registration's CPU, and its garbage. A polling client
 * loses nothing by it: its first call is a full fetch, which starts the keeping; one that comes
 * back after the keeping stopped gets a delta without the changes it missed, finds its hash
 * wrong and fetches the whole catalog again, as it would after the window.
 */
final class RecentChanges {
  /** One instance's latest change: when, whether it appeared within the window, its last view if it is gone. */
  record Change(ServiceKey service, String instanceId, long atMillis, boolean added, @Nullable InstanceBody removed) {}

  private record Key(ServiceKey service, String instanceId) {}

  private final long windowMillis;
  private final int maxChanges;
  /** In the order of each instance's latest change: a new change moves its instance to the end. */
  private final LinkedHashMap<Key, Change> changes = new LinkedHashMap<>();
  /** Whether a catalog was read within the last window, and when it last was. */
  private boolean read;
  private long lastReadMillis;
  /** Moves whenever the kept changes do (one recorded, one left the window, all dropped): a delta read before still holds while it stands. */
  private long generation;

  RecentChanges(long windowMillis, int maxChanges) {
    this.windowMillis = windowMillis;
    this.maxChanges = maxChanges;
  }

  /** Records a command's events, at {@code nowMillis}. */
  void record(List<RegistryEvent> events, long nowMillis) {
    if (!keeping(nowMillis)) {
      return;
    }
    for (RegistryEvent event : events) {
      if (event instanceof RegistryEvent.InstanceUpserted upserted) {
        Key key = new Key(upserted.service(), upserted.instance().instanceId());
        Change before = changes.remove(key);
        boolean added = before != null ? before.added() || before.removed() != null
            : upserted.cause() == ChangeCause.REGISTER;
        changes.put(key, new Change(key.service(), key.instanceId(), nowMillis, added, null));
        generation++;
      } else if (event instanceof RegistryEvent.InstanceRemoved removed) {
        Key key = new Key(removed.service(), removed.instance().instanceId());
        changes.remove(key);
        // Its last view as the contract's body, made once: every delta read until it leaves the window shows it.
        changes.put(key, new Change(key.service(), key.instanceId(), nowMillis, false,
            WireViews.instance(removed.instance())));
        generation++;
      }
    }
    trim(nowMillis);
  }

  /** A catalog or delta was read at {@code nowMillis}: changes are kept from now on, for a window at least. */
  void readAt(long nowMillis) {
    read = true;
    lastReadMillis = nowMillis;
  }

  /** Whether changes are kept at {@code nowMillis}; when a window has passed without a read, the kept ones go. */
  private boolean keeping(long nowMillis) {
    if (read && nowMillis - lastReadMillis > windowMillis) {
      read = false;
      changes.clear();
      generation++;
    }
    return read;
  }

  /** The changes of the window ending at {@code nowMillis} to the services of a namespace and group, oldest first. */
  List<Change> of(String namespace, String group, long nowMillis) {
    trim(nowMillis);
    List<Change> found = new ArrayList<>();
    for (Change change : changes.values()) {
      if (change.service().namespace().equals(namespace) && change.service().group().equals(group)) {
        found.add(change);
      }
    }
    return found;
  }

  int size() {
    return changes.size();
  }

  /**
   * Where the kept changes stand at {@code nowMillis}, those past the window dropped first: equal
   * to an earlier answer only while no change has been recorded or dropped since.
   */
  long generation(long nowMillis) {
    trim(nowMillis);
    return generation;
  }

  private void trim(long nowMillis) {
    Iterator<Map.Entry<Key, Change>> oldest = changes.entrySet().iterator();
    while (oldest.hasNext()) {
      Change change = oldest.next().getValue();
      if (change.atMillis() > nowMillis - windowMillis && changes.size() <= maxChanges) {
        return;
      }
      oldest.remove();
      generation++;
    }
  }
}
