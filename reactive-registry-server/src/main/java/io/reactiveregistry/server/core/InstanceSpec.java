package io.reactiveregistry.server.core;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * An instance as a registration describes it, validated and with defaults filled. Its identity
 * inside a service is {@code ip#port#cluster}.
 */
public record InstanceSpec(String ip, int port, String cluster, double weight, boolean enabled, Map<String, String> metadata) {
  public static final String DEFAULT_CLUSTER = "DEFAULT";
  public static final double DEFAULT_WEIGHT = 1.0;
  public static final double MAX_WEIGHT = 10_000;
  public static final int MAX_METADATA_ENTRIES = 64;
  public static final int MAX_METADATA_BYTES = 16 * 1024;

  public InstanceSpec {
    metadata = Map.copyOf(metadata);
  }

  /**
   * Validates a registration's instance fields; {@code field} prefixes the names in error messages
   * (e.g. {@code instance} or {@code instances[2]}).
   */
  public static InstanceSpec of(String field, String ip, Integer port, String cluster, Double weight, Boolean enabled,
      Map<String, String> metadata) {
    return new InstanceSpec(
        Addresses.normalize(field + ".ip", ip),
        requirePort(field + ".port", port),
        Names.orDefault(field + ".cluster", cluster, DEFAULT_CLUSTER),
        checkWeight(field + ".weight", weight),
        enabled == null || enabled,
        checkMetadata(field + ".metadata", metadata));
  }

  public String instanceId() {
    return instanceId(ip, port, cluster);
  }

  public static String instanceId(String ip, int port, String cluster) {
    return ip + '#' + port + '#' + cluster;
  }

  public static int requirePort(String field, Integer port) {
    if (port == null) {
      throw RegistryException.invalid(field + " is required");
    }
    if (port < 1 || port > 65_535) {
      throw RegistryException.invalid(field + " must be between 1 and 65535");
    }
    return port;
  }

  public static double checkWeight(String field, Double weight) {
    if (weight == null) {
      return DEFAULT_WEIGHT;
    }
    if (!(weight >= 0 && weight <= MAX_WEIGHT)) {
      throw RegistryException.invalid(field + " must be between 0 and 10000");
    }
    return weight;
  }

  public static Map<String, String> checkMetadata(String field, Map<String, String> metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return Map.of();
    }
    if (metadata.size() > MAX_METADATA_ENTRIES) {
      throw RegistryException.invalid(field + " must have at most 64 entries (has " + metadata.size() + ")");
    }
    long bytes = 0;
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      if (entry.getKey() == null || entry.getKey().isEmpty()) {
        throw RegistryException.invalid(field + " keys must not be empty");
      }
      if (entry.getValue() == null) {
        throw RegistryException.invalid(field + " value of '" + entry.getKey() + "' must be a string, not null");
      }
      bytes += utf8Length(entry.getKey()) + utf8Length(entry.getValue());
    }
    if (bytes > MAX_METADATA_BYTES) {
      throw RegistryException.invalid(field + " must be at most 16 KiB in all (has " + bytes + " bytes)");
    }
    return metadata;
  }

  private static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
