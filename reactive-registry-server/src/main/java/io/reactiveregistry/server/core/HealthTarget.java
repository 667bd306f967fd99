package io.reactiveregistry.server.core;

import java.util.Map;

/**
 * What a health check needs to know about a persistent instance. {@code instanceChecksOff}: the
 * instance's own metadata turns its checks off ({@link #CHECKS_ENABLED} {@code false}).
 */
public record HealthTarget(ServiceKey service, String instanceId, String ip, int port, String httpPath,
    boolean https, Map<String, String> serviceMetadata, boolean instanceChecksOff) {

  /** Instance metadata key: {@code https} to GET the health path over TLS (default {@code http}). */
  public static final String HTTP_SCHEME = "health.http.scheme";

  /** Instance metadata key: check health by an HTTP GET of this path rather than a TCP connect. */
  public static final String HTTP_PATH = "health.http.path";

  /** Service or instance metadata key: {@code false} turns checks off, of the service's instances or of one. */
  public static final String CHECKS_ENABLED = "health.check.enabled";

  /** Whether this instance goes unchecked: its service's metadata or its own turns checks off. */
  public boolean checksOff() {
    return instanceChecksOff || off(serviceMetadata);
  }

  /** Whether {@code metadata} turns checks off. */
  static boolean off(Map<String, String> metadata) {
    return "false".equalsIgnoreCase(metadata.get(CHECKS_ENABLED));
  }
}
