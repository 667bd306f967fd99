package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Body of {@code service.query} and {@code service.subscribe}. An absent or empty {@code clusters}
 * means every cluster.
 *
 * @param sinceRevision {@code service.subscribe} only: resume from this revision, the last one the
 *     subscriber saw of the view, instead of starting with a snapshot
 * @param node with {@code sinceRevision}: the {@code node} of the {@code SNAPSHOT} (or {@code
 *     RESUMED}) the revision came from; revisions are each server's own
 * @param coalesce {@code service.subscribe} only: events pending together for this subscriber may
 *     come as one {@code BATCH} event, and a change superseded within it left out
 * @param selector which instances, by their metadata ({@link io.reactiveregistry.protocol.rules.Selector}'s
 *     grammar); absent or blank: every instance
 * @param consistent {@code service.query} only: answer once this member has applied every durable
 *     change the cluster had committed when the query arrived (a linearizable read); absent or
 *     false: from this member's state at once (a follower may be a moment behind)
 */
public record Query(@Nullable String namespace, @Nullable String group, @Nullable String service,
    @Nullable List<String> clusters, @Nullable Boolean healthyOnly, @Nullable Long sinceRevision,
    @Nullable String node, @Nullable Boolean coalesce, @Nullable String selector, @Nullable Boolean consistent) {

  public Query(@Nullable String namespace, @Nullable String group, @Nullable String service,
      @Nullable List<String> clusters, @Nullable Boolean healthyOnly) {
    this(namespace, group, service, clusters, healthyOnly, null);
  }

  public Query(@Nullable String namespace, @Nullable String group, @Nullable String service,
      @Nullable List<String> clusters, @Nullable Boolean healthyOnly, @Nullable String selector) {
    this(namespace, group, service, clusters, healthyOnly, null, null, null, selector, null);
  }

  public static Query of(String service) {
    return new Query(null, null, service, null, null);
  }

  /** The same view, resumed after {@code revision} of {@code node}'s stream. */
  public Query resumingAfter(long revision, String node) {
    return new Query(namespace, group, service, clusters, healthyOnly, revision, node, coalesce, selector, consistent);
  }

  /** The same subscription, taking events pending together as one {@code BATCH}. */
  public Query coalescing() {
    return new Query(namespace, group, service, clusters, healthyOnly, sinceRevision, node, true, selector,
        consistent);
  }

  /** The same query, answered as a linearizable read ({@code consistent}). */
  public Query consistently() {
    return new Query(namespace, group, service, clusters, healthyOnly, sinceRevision, node, coalesce, selector, true);
  }
}
