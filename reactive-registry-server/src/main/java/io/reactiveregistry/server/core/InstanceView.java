package io.reactiveregistry.server.core;

import java.util.Map;

/**
 * An instance as views show it: registered fields with operator overrides applied, plus the
 * health and type the server decided. Immutable; a change makes a new one, so "did the view
 * change" is {@code equals}.
 */
public record InstanceView(
    String instanceId, String ip, int port, String cluster, double weight, boolean enabled, boolean healthy,
    boolean ephemeral, Map<String, String> metadata) {

  /** Healthy, enabled and of weight above 0: what a {@code healthyOnly} view keeps. */
  public boolean servesTraffic() {
    return healthy && enabled && weight > 0;
  }

  InstanceView withHealthy(boolean value) {
    return value == healthy ? this
        : new InstanceView(instanceId, ip, port, cluster, weight, enabled, value, ephemeral, metadata);
  }
}
