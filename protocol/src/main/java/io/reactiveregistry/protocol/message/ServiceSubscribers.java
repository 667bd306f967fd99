package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Answer of {@code admin.service.subscribers}: the streams open on this member that watch a
 * service, oldest first, so that an operator sees who is affected before acting on it.
 */
public record ServiceSubscribers(String namespace, String group, String service, List<Subscriber> subscribers) {

  /**
   * One watch: who ({@code client@address} of its connection, {@code http@address} for a
   * server-sent event watch), over what ({@code rsocket}, {@code http}, {@code nacos}), the
   * principal it was opened for (null without tokens), the view it asked for (clusters, healthy
   * only, the selector's canonical text; null: none) and since when (epoch milliseconds).
   */
  public record Subscriber(String client, String transport, @Nullable String principal,
      @Nullable List<String> clusters, boolean healthyOnly, @Nullable String selector, long since) {}
}
