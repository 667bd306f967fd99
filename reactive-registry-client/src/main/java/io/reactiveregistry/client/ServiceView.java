package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.InstanceBody;
import java.util.List;

/**
 * A complete view of a service as the client knows it: the server's snapshot with every later
 * change applied. {@code stale} is true while the client is disconnected and the view may be out
 * of date; it is the last view the client had, never an empty one made up.
 */
public record ServiceView(
    ServiceName service, long revision, boolean protectionTriggered, List<InstanceBody> instances, boolean stale) {

  public ServiceView {
    instances = List.copyOf(instances);
  }

  ServiceView asStale() {
    return stale ? this : new ServiceView(service, revision, protectionTriggered, instances, true);
  }
}
