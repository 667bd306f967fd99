package io.reactiveregistry.protocol.message;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The contract's {@code Instance}. In requests only {@code ip}, {@code port}, {@code cluster},
 * {@code weight}, {@code enabled} and {@code metadata} are read; {@code instanceId},
 * {@code healthy} and {@code ephemeral} are output only.
 */
public record InstanceBody(
    @Nullable String instanceId,
    @Nullable String ip,
    @Nullable Integer port,
    @Nullable String cluster,
    @Nullable Double weight,
    @Nullable Boolean enabled,
    @Nullable Boolean healthy,
    @Nullable Boolean ephemeral,
    @Nullable Map<String, String> metadata) {

  /** An instance as a client describes it when registering. */
  public static InstanceBody of(String ip, int port, String cluster, double weight, Map<String, String> metadata) {
    return new InstanceBody(null, ip, port, cluster, weight, null, null, null, metadata);
  }

  /** Just the identifying fields, as in an InstanceRef. */
  public static InstanceBody ref(String ip, int port, String cluster) {
    return new InstanceBody(null, ip, port, cluster, null, null, null, null, null);
  }
}
