package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.protocol.rules.Selector;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What part of a service a view shows: some clusters (empty: all), the instances a selector over
 * their metadata selects, and, optionally, only healthy ones. Equal filters are one view: the
 * selector compares by its requirements, whatever their order in the query.
 */
public record ViewFilter(Set<String> clusters, boolean healthyOnly, Selector selector) {
  public static final ViewFilter ALL = new ViewFilter(Set.of(), false, Selector.everything());

  public ViewFilter {
    clusters = Set.copyOf(clusters);
  }

  public ViewFilter(Set<String> clusters, boolean healthyOnly) {
    this(clusters, healthyOnly, Selector.everything());
  }

  /** Validates the cluster names of a query; null or empty means every cluster. */
  public static ViewFilter of(@Nullable List<String> clusters, @Nullable Boolean healthyOnly) {
    return of(clusters, healthyOnly, null);
  }

  /**
   * Validates a query's cluster names (null or empty: every cluster) and parses its selector (null
   * or blank: every instance); a bad one is refused naming the field and the rule.
   */
  public static ViewFilter of(@Nullable List<String> clusters, @Nullable Boolean healthyOnly,
      @Nullable String selector) {
    Selector parsed = Contract.check(() -> Selector.parse("selector", selector));
    if (clusters == null || clusters.isEmpty()) {
      return new ViewFilter(Set.of(), Boolean.TRUE.equals(healthyOnly), parsed);
    }
    for (int i = 0; i < clusters.size(); i++) {
      String field = "clusters[" + i + "]";
      String cluster = clusters.get(i);
      Contract.check(() -> Names.require(field, cluster));
    }
    return new ViewFilter(Set.copyOf(clusters), Boolean.TRUE.equals(healthyOnly), parsed);
  }

  /** Whether an instance is in the part of the service this filter shows, health aside. */
  public boolean includes(InstanceView instance) {
    return (clusters.isEmpty() || clusters.contains(instance.cluster())) && selector.matches(instance.metadata());
  }
}
