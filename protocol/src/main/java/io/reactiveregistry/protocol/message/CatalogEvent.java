package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An event of {@code catalog.subscribe}, by {@code type}:
 *
 * <ul>
 *   <li>{@code SNAPSHOT}: every service the subscription covers, as {@code services}, at
 *       {@code revision}, from {@code node}; what follows applies to it.
 *   <li>{@code UPSERT}: {@code service} appeared, or its summary changed (instance count,
 *       healthy count, protection, type).
 *   <li>{@code REMOVE}: the service {@code group}/{@code name} is gone.
 *   <li>{@code RESUMED}: a resumed subscription was accepted at {@code revision}; the changes
 *       missed since follow.
 * </ul>
 */
public record CatalogEvent(String type, long revision, @Nullable String namespace,
    @Nullable List<ServiceSummary> services, @Nullable ServiceSummary service, @Nullable String group,
    @Nullable String name, @Nullable String node) {
  public static final String SNAPSHOT = "SNAPSHOT";
  public static final String UPSERT = "UPSERT";
  public static final String REMOVE = "REMOVE";
  public static final String RESUMED = "RESUMED";

  public static CatalogEvent snapshot(String namespace, long revision, List<ServiceSummary> services, String node) {
    return new CatalogEvent(SNAPSHOT, revision, namespace, List.copyOf(services), null, null, null, node);
  }

  public static CatalogEvent upsert(long revision, ServiceSummary service) {
    return new CatalogEvent(UPSERT, revision, null, null, service, null, null, null);
  }

  public static CatalogEvent remove(long revision, String group, String name) {
    return new CatalogEvent(REMOVE, revision, null, null, null, group, name, null);
  }

  public static CatalogEvent resumed(long revision, String node) {
    return new CatalogEvent(RESUMED, revision, null, null, null, null, null, node);
  }
}
