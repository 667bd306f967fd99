package io.reactiveregistry.protocol.message;

import java.util.List;
import java.util.Map;

/** Answer to the {@code admin.service.*} routes. */
public record ServiceDetail(
    String namespace, String group, String service, boolean ephemeral, double protectThreshold,
    Map<String, String> metadata, long revision, List<String> clusters, int instanceCount) {}
