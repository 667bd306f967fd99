package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.Names;
import java.util.List;
import java.util.Set;

/** What part of a service a view shows: some clusters (empty: all) and, optionally, only healthy ones. */
public record ViewFilter(Set<String> clusters, boolean healthyOnly) {
  public static final ViewFilter ALL = new ViewFilter(Set.of(), false);

  public ViewFilter {
    clusters = Set.copyOf(clusters);
  }

  /** Validates the cluster names of a query; null or empty means every cluster. */
  public static ViewFilter of(List<String> clusters, Boolean healthyOnly) {
    if (clusters == null || clusters.isEmpty()) {
      return new ViewFilter(Set.of(), Boolean.TRUE.equals(healthyOnly));
    }
    for (int i = 0; i < clusters.size(); i++) {
      String field = "clusters[" + i + "]";
      String cluster = clusters.get(i);
      Contract.check(() -> Names.require(field, cluster));
    }
    return new ViewFilter(Set.copyOf(clusters), Boolean.TRUE.equals(healthyOnly));
  }

  public boolean includesCluster(String cluster) {
    return clusters.isEmpty() || clusters.contains(cluster);
  }
}
