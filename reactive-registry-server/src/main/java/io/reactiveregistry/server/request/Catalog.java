package io.reactiveregistry.server.request;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.util.List;

/**
 * Every service of a namespace and group as it is at one revision, unfiltered (unhealthy and
 * disabled instances included): what a door whose clients keep a copy of the whole catalog serves
 * (Eureka's {@code GET /apps}). Services by name.
 */
public record Catalog(String namespace, String group, long revision, List<ServiceSnapshot> services) {

  /** How an instance changed within the recent-changes window. */
  public enum ChangeKind { ADDED, MODIFIED, DELETED }

  /**
   * An instance's latest change: its view now, or for a {@code DELETED} one its last view.
   * {@code service} is the service's name in the catalog's namespace and group.
   */
  public record Change(String service, ChangeKind kind, InstanceBody instance) {}

  /** The catalog now and the changes of the window that led to it, oldest first, read as one cut. */
  public record Delta(Catalog catalog, List<Change> changes) {}
}
