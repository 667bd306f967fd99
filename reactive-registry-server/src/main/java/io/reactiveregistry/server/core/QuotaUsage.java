package io.reactiveregistry.server.core;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What the registry holds against its {@link Quotas}, in all and per namespace. The registry asks
 * before it changes anything ({@code check...}, which throws {@code LIMIT_EXCEEDED}) and reports
 * what it changed; restoring from storage only reports, so that lowering a quota never loses data.
 */
final class QuotaUsage {
  private static final class Counts {
    int services;
    int persistentInstances;
    long durableMetadataBytes;
  }

  private final Quotas quotas;
  private final Counts total = new Counts();
  private final Map<String, Counts> byNamespace = new HashMap<>();

  QuotaUsage(Quotas quotas) {
    this.quotas = quotas;
  }

  /** UTF-8 bytes of the keys and values. */
  static long bytes(Map<String, String> metadata) {
    long bytes = 0;
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      bytes += utf8Length(entry.getKey()) + utf8Length(entry.getValue());
    }
    return bytes;
  }

  private static long utf8Length(String text) {
    // Metadata is mostly ASCII; only then is the length the byte count.
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) >= 0x80) {
        return text.getBytes(StandardCharsets.UTF_8).length;
      }
    }
    return text.length();
  }

  void checkNewService(ServiceKey key) {
    Counts namespace = byNamespace.get(key.namespace());
    if (namespace == null && byNamespace.size() >= quotas.maxNamespaces()) {
      throw exceeded("the registry holds its quota of " + quotas.maxNamespaces() + " namespaces (--max-namespaces); "
          + "namespace " + key.namespace() + " would be one more");
    }
    if (total.services >= quotas.maxServices()) {
      throw exceeded("the registry holds its quota of " + quotas.maxServices() + " services (--max-services)");
    }
    if (namespace != null && namespace.services >= quotas.maxServicesPerNamespace()) {
      throw exceeded("namespace " + key.namespace() + " holds its quota of " + quotas.maxServicesPerNamespace()
          + " services (--max-services-per-namespace)");
    }
  }

  /** Before a change that adds {@code instances} persistent instances and {@code bytes} of durable metadata. */
  void checkDurable(ServiceKey key, int instances, long bytes) {
    Counts namespace = byNamespace.getOrDefault(key.namespace(), new Counts());
    if (instances > 0) {
      if (total.persistentInstances + instances > quotas.maxPersistentInstances()) {
        throw exceeded("the registry holds its quota of " + quotas.maxPersistentInstances()
            + " persistent instances (--max-persistent-instances)");
      }
      if (namespace.persistentInstances + instances > quotas.maxPersistentInstancesPerNamespace()) {
        throw exceeded("namespace " + key.namespace() + " holds its quota of "
            + quotas.maxPersistentInstancesPerNamespace() + " persistent instances (--max-persistent-instances-per-namespace)");
      }
    }
    if (bytes > 0) {
      if (total.durableMetadataBytes + bytes > quotas.maxDurableMetadataBytes()) {
        throw exceeded("durable metadata would exceed the registry's quota of " + quotas.maxDurableMetadataBytes()
            + " bytes (--max-durable-metadata-bytes); " + total.durableMetadataBytes + " are held");
      }
      if (namespace.durableMetadataBytes + bytes > quotas.maxDurableMetadataBytesPerNamespace()) {
        throw exceeded("durable metadata would exceed namespace " + key.namespace() + "'s quota of "
            + quotas.maxDurableMetadataBytesPerNamespace() + " bytes (--max-durable-metadata-bytes-per-namespace); "
            + namespace.durableMetadataBytes + " are held");
      }
    }
  }

  void serviceAdded(ServiceKey key) {
    total.services++;
    byNamespace.computeIfAbsent(key.namespace(), k -> new Counts()).services++;
  }

  void serviceRemoved(ServiceKey key) {
    total.services--;
    Counts namespace = byNamespace.get(key.namespace());
    if (namespace != null && --namespace.services == 0) {
      byNamespace.remove(key.namespace());
    }
  }

  void durableChanged(ServiceKey key, int instances, long bytes) {
    total.persistentInstances += instances;
    total.durableMetadataBytes += bytes;
    Counts namespace = byNamespace.computeIfAbsent(key.namespace(), k -> new Counts());
    namespace.persistentInstances += instances;
    namespace.durableMetadataBytes += bytes;
  }

  int namespaces() {
    return byNamespace.size();
  }

  long durableMetadataBytes() {
    return total.durableMetadataBytes;
  }

  private static RegistryException exceeded(String message) {
    return new RegistryException(Failure.LIMIT_EXCEEDED, message);
  }
}
