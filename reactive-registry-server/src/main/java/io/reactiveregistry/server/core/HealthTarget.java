package io.reactiveregistry.server.core;

import java.util.Map;

/** What a health check needs to know about a persistent instance. */
public record HealthTarget(ServiceKey service, String instanceId, String ip, int port, String httpPath,
    boolean https, Map<String, String> serviceMetadata) {

  /** Instance metadata key: {@code https} to GET the health path over TLS (default {@code http}). */
  public static final String HTTP_SCHEME = "health.http.scheme";

  /** Instance metadata key: check health by an HTTP GET of this path rather than a TCP connect. */
  public static final String HTTP_PATH = "health.http.path";
}
