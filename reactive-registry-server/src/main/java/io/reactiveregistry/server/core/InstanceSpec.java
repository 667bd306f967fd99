package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.Addresses;
import io.reactiveregistry.protocol.rules.InstanceRules;
import io.reactiveregistry.protocol.rules.Names;
import java.util.Map;

/**
 * An instance as a registration describes it, validated and with defaults filled. Its identity
 * inside a service is {@code ip#port#cluster}.
 */
public record InstanceSpec(String ip, int port, String cluster, double weight, boolean enabled, Map<String, String> metadata) {
  public static final String DEFAULT_CLUSTER = "DEFAULT";

  public InstanceSpec {
    metadata = Map.copyOf(metadata);
    // One string for the cluster nearly every instance is in, not one per decoded request or copy.
    cluster = DEFAULT_CLUSTER.equals(cluster) ? DEFAULT_CLUSTER : cluster;
  }

  /**
   * Validates a registration's instance fields; {@code field} prefixes the names in error messages
   * (e.g. {@code instance} or {@code instances[2]}).
   */
  public static InstanceSpec of(String field, String ip, Integer port, String cluster, Double weight, Boolean enabled,
      Map<String, String> metadata) {
    FieldNames names = FieldNames.INSTANCE.prefix.equals(field) ? FieldNames.INSTANCE : new FieldNames(field);
    return Contract.check(() -> new InstanceSpec(
        Addresses.normalize(names.ip, ip),
        InstanceRules.port(names.port, port),
        Names.orDefault(names.cluster, cluster, DEFAULT_CLUSTER),
        InstanceRules.weight(names.weight, weight),
        enabled == null || enabled,
        InstanceRules.metadata(names.metadata, metadata)));
  }

  /**
   * The names the rules give the fields in their messages; those of a single registration's
   * {@code instance} built once, not five strings per registration.
   */
  private static final class FieldNames {
    static final FieldNames INSTANCE = new FieldNames("instance");
    final String prefix;
    final String ip;
    final String port;
    final String cluster;
    final String weight;
    final String metadata;

    FieldNames(String prefix) {
      this.prefix = prefix;
      this.ip = prefix + ".ip";
      this.port = prefix + ".port";
      this.cluster = prefix + ".cluster";
      this.weight = prefix + ".weight";
      this.metadata = prefix + ".metadata";
    }
  }

  public String instanceId() {
    return instanceId(ip, port, cluster);
  }

  public static String instanceId(String ip, int port, String cluster) {
    return ip + '#' + port + '#' + cluster;
  }
}
