package io.reactiveregistry.server.core;

import java.util.Map;

/** What a health check needs to know about a persistent instance. */
public record HealthTarget(ServiceKey service, String instanceId, String ip, int port, String httpPath,
    Map<String, String> serviceMetadata) {

  /** Instance metadata key: check health by an HTTP GET of this path rather than a TCP connect. */
  public static final String HTTP_PATH = "health.http.path";
}
