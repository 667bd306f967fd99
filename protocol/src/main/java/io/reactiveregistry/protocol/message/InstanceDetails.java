package io.reactiveregistry.protocol.message;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The answer to {@code admin.service.instances}: a service's instances as an operator sees them,
 * each with who owns it, when it was last heard from and the operator's override of it.
 */
public record InstanceDetails(String namespace, String group, String service, long revision,
    List<InstanceDetails.Detail> instances) {

  /**
   * One instance: its view (overrides applied, as subscribers see it), its owner (the connection's
   * label, or {@code node <id>} for another node's copy; null for a persistent instance), that
   * connection's id on this server ({@code admin.connections}; null when it has none here), its
   * last heartbeat in epoch milliseconds (null where this server does not receive them), the
   * operator's override (null for none), and the last health check of a persistent instance that
   * this member ran (null for an ephemeral one, before the first, and on members that do not check
   * it: in a cluster each member checks its share).
   */
  public record Detail(InstanceBody instance, @Nullable String owner, @Nullable Long connection,
      @Nullable Long lastHeartbeat, @Nullable Overridden override, @Nullable LastCheck lastCheck) {}

  /**
   * A health check: when it ended (epoch milliseconds), its verdict, how long it took, and why:
   * {@code "connected"}, {@code "HTTP 200"}, {@code "HTTP 503"}, {@code "connection refused"},
   * {@code "timed out after 2000 ms"}, {@code "TLS: certificate not trusted (...)"}.
   */
  public record LastCheck(long time, boolean healthy, long latencyMs, String reason) {}

  /** What an operator set over what the instance registered; a field left null is not overridden. */
  public record Overridden(@Nullable Boolean enabled, @Nullable Double weight, @Nullable Map<String, String> metadata) {}
}
