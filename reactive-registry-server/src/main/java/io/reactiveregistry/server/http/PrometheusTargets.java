package io.reactiveregistry.server.http;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.request.Catalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Registered instances as Prometheus scrape targets, in the shape of Prometheus's HTTP service
 * discovery ({@code http_sd_configs}): one target group an instance, its address (or the port of
 * its metadata {@code prometheus.port}), the path and scheme of {@code prometheus.path} and
 * {@code prometheus.scheme} as {@code __metrics_path__} and {@code __scheme__}, the labels
 * {@code namespace}, {@code group}, {@code service}, {@code cluster} and {@code zone} (metadata
 * {@code zone}) attached to every series scraped, and the rest as {@code __meta_registry_*} labels
 * for relabelling: the instance id, health, whether it is enabled, and each metadata entry.
 */
final class PrometheusTargets {
  static final String PORT_KEY = "prometheus.port";
  static final String PATH_KEY = "prometheus.path";
  static final String SCHEME_KEY = "prometheus.scheme";
  /** What a Prometheus label name may hold; anything else in a metadata key becomes {@code _}. */
  private static final Pattern NOT_IN_A_LABEL = Pattern.compile("[^a-zA-Z0-9_]");

  /** One target group of Prometheus's HTTP service discovery. */
  record TargetGroup(List<String> targets, Map<String, String> labels) {}

  private PrometheusTargets() {}

  /** The instances of {@code catalog} (of {@code service} alone when given), each a target group. */
  static List<TargetGroup> of(Catalog catalog, @Nullable String service) {
    List<TargetGroup> groups = new ArrayList<>();
    for (ServiceSnapshot snapshot : catalog.services()) {
      if (service != null && !service.equals(snapshot.service())) {
        continue;
      }
      for (InstanceBody instance : snapshot.instances()) {
        groups.add(group(catalog, snapshot.service(), instance));
      }
    }
    return groups;
  }

  private static TargetGroup group(Catalog catalog, String service, InstanceBody instance) {
    Map<String, String> metadata = instance.metadata() == null ? Map.of() : instance.metadata();
    int port = port(metadata.get(PORT_KEY), instance.port());
    String host = instance.ip().indexOf(':') >= 0 ? "[" + instance.ip() + "]" : instance.ip();
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("namespace", catalog.namespace());
    labels.put("group", catalog.group());
    labels.put("service", service);
    labels.put("cluster", instance.cluster());
    if (metadata.get("zone") != null) {
      labels.put("zone", metadata.get("zone"));
    }
    if (metadata.get(PATH_KEY) != null) {
      String path = metadata.get(PATH_KEY);
      labels.put("__metrics_path__", path.startsWith("/") ? path : "/" + path);
    }
    if ("https".equals(metadata.get(SCHEME_KEY)) || "http".equals(metadata.get(SCHEME_KEY))) {
      labels.put("__scheme__", metadata.get(SCHEME_KEY));
    }
    labels.put("__meta_registry_instance_id", instance.instanceId());
    labels.put("__meta_registry_healthy", String.valueOf(!Boolean.FALSE.equals(instance.healthy())));
    labels.put("__meta_registry_enabled", String.valueOf(!Boolean.FALSE.equals(instance.enabled())));
    labels.put("__meta_registry_ephemeral", String.valueOf(!Boolean.FALSE.equals(instance.ephemeral())));
    metadata.forEach((key, value) -> labels.put("__meta_registry_metadata_" + NOT_IN_A_LABEL.matcher(key)
        .replaceAll("_"), value));
    return new TargetGroup(List.of(host + ":" + port), labels);
  }

  /** The scrape port: {@code prometheus.port} when it is one, else the instance's own. */
  private static int port(@Nullable String value, int instancePort) {
    if (value == null) {
      return instancePort;
    }
    try {
      int port = Integer.parseInt(value.strip());
      return port >= 1 && port <= 65_535 ? port : instancePort;
    } catch (NumberFormatException e) {
      return instancePort;
    }
  }
}
