package io.reactiveregistry.server.nacos;

import java.util.List;

/**
 * Nacos's {@code ServiceInfo}: a service's instances as one of its clients is pushed or answered
 * them, always the whole list. {@code lastRefTime} only grows for a view: a client drops a list
 * older than the one it holds. {@code cacheMillis} is how often a client that is not pushed to
 * polls (Nacos's default, 10 s).
 */
record ServiceInfo(
    String name,
    String groupName,
    String clusters,
    long cacheMillis,
    List<NacosInstance> hosts,
    long lastRefTime,
    String checksum,
    boolean allIPs,
    boolean reachProtectionThreshold) {}
