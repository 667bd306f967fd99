package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.ServiceSummary;
import java.util.List;

/**
 * The services of a namespace (of a group, of a name prefix, as watched) as the client knows
 * them: the server's catalog snapshot with every later change applied, by group then name.
 * {@code stale} is true while the client is disconnected and the catalog may be out of date.
 */
public record CatalogView(String namespace, long revision, List<ServiceSummary> services, boolean stale) {
  public CatalogView {
    services = List.copyOf(services);
  }

  CatalogView asStale() {
    return stale ? this : new CatalogView(namespace, revision, services, true);
  }
}
