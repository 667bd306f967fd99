package io.reactiveregistry.server.core;

/**
 * How much the registry holds, in all and per namespace, so that clients (anonymous ones too, until
 * there is authentication) cannot fill the heap or the disk: past a quota a command is refused with
 * {@code LIMIT_EXCEEDED} naming it, and nothing changes.
 *
 * @param maxNamespaces namespaces holding at least one service
 * @param maxServices services of either type, whether an operator created them or a registration did
 * @param maxServicesPerNamespace the same, in one namespace
 * @param maxPersistentInstances persistent instances (kept durably)
 * @param maxPersistentInstancesPerNamespace the same, in one namespace
 * @param maxDurableMetadataBytes UTF-8 bytes of metadata kept durably: persistent instances' and
 *     service definitions' keys and values
 * @param maxDurableMetadataBytesPerNamespace the same, in one namespace
 * @param maxHttpInstances ephemeral instances registered over HTTP, which belong to no connection
 *     (they live by their heartbeats) and so count against this quota instead of a connection's
 */
public record Quotas(int maxNamespaces, int maxServices, int maxServicesPerNamespace, int maxPersistentInstances,
    int maxPersistentInstancesPerNamespace, long maxDurableMetadataBytes, long maxDurableMetadataBytesPerNamespace,
    int maxHttpInstances) {
  /**
   * Far above what the load tests hold (100,000 ephemeral instances in a few hundred services),
   * and within a 512 MiB heap for what is kept durably (Ratis holds recent log entries too).
   */
  public static final Quotas DEFAULTS = new Quotas(1_000, 100_000, 20_000, 100_000, 20_000, 64L << 20, 16L << 20,
      100_000);

  public Quotas {
    if (maxNamespaces < 1 || maxServices < 1 || maxServicesPerNamespace < 1 || maxPersistentInstances < 1
        || maxPersistentInstancesPerNamespace < 1 || maxDurableMetadataBytes < 1
        || maxDurableMetadataBytesPerNamespace < 1 || maxHttpInstances < 1) {
      throw new IllegalArgumentException("every quota must be at least 1: " + this);
    }
  }

  /** With the default quota of HTTP-registered instances. */
  public Quotas(int maxNamespaces, int maxServices, int maxServicesPerNamespace, int maxPersistentInstances,
      int maxPersistentInstancesPerNamespace, long maxDurableMetadataBytes, long maxDurableMetadataBytesPerNamespace) {
    this(maxNamespaces, maxServices, maxServicesPerNamespace, maxPersistentInstances,
        maxPersistentInstancesPerNamespace, maxDurableMetadataBytes, maxDurableMetadataBytesPerNamespace,
        DEFAULTS.maxHttpInstances());
  }
}
