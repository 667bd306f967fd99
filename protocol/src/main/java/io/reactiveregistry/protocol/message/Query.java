package io.reactiveregistry.protocol.message;

import java.util.List;

/**
 * Body of {@code service.query} and {@code service.subscribe}. An absent or empty {@code clusters}
 * means every cluster.
 */
public record Query(String namespace, String group, String service, List<String> clusters, Boolean healthyOnly) {

  public static Query of(String service) {
    return new Query(null, null, service, null, null);
  }
}
