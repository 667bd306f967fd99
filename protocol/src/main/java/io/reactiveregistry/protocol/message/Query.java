package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Body of {@code service.query} and {@code service.subscribe}. An absent or empty {@code clusters}
 * means every cluster.
 */
public record Query(@Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable List<String> clusters, @Nullable Boolean healthyOnly) {

  public static Query of(String service) {
    return new Query(null, null, service, null, null);
  }
}
