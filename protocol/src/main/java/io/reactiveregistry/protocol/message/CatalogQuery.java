package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/**
 * Body of {@code catalog.subscribe}: the services of a namespace (the default one when absent),
 * of one group when {@code group} is given, whose names start with {@code prefix} when given.
 *
 * @param sinceRevision resume from this revision, the last one the subscriber saw of the catalog,
 *     instead of starting with a snapshot
 * @param node with {@code sinceRevision}: the {@code node} of the {@code SNAPSHOT} (or
 *     {@code RESUMED}) the revision came from; revisions are each server's own
 */
public record CatalogQuery(@Nullable String namespace, @Nullable String group, @Nullable String prefix,
    @Nullable Long sinceRevision, @Nullable String node) {

  public CatalogQuery(@Nullable String namespace, @Nullable String group, @Nullable String prefix) {
    this(namespace, group, prefix, null, null);
  }

  /** The same catalog, resumed after {@code revision} of {@code node}'s stream. */
  public CatalogQuery resumingAfter(long revision, String node) {
    return new CatalogQuery(namespace, group, prefix, revision, node);
  }
}
