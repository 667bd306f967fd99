package io.reactiveregistry.server.core;

import java.util.List;
import java.util.Map;

/** A service's settings and shape, as {@code admin.service.*} reports them. */
public record ServiceDefinition(
    ServiceKey service, boolean ephemeral, double protectThreshold, Map<String, String> metadata, long revision,
    List<String> clusters, int instanceCount) {

  /** Checks the protection threshold rule: 0.0 to 1.0. */
  public static double checkThreshold(Double value) {
    if (value == null) {
      return 0.0;
    }
    if (!(value >= 0.0 && value <= 1.0)) {
      throw RegistryException.invalid("protectThreshold must be between 0.0 and 1.0");
    }
    return value;
  }
}
