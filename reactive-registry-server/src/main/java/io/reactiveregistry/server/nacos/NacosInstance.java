package io.reactiveregistry.server.nacos;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Nacos's {@code Instance}, as its clients send it and are sent it. {@code serviceName} is the
 * grouped name ({@code group@@service}) on the way out; on the way in the request's names count.
 */
record NacosInstance(
    @Nullable String instanceId,
    @Nullable String ip,
    @Nullable Integer port,
    @Nullable Double weight,
    @Nullable Boolean healthy,
    @Nullable Boolean enabled,
    @Nullable Boolean ephemeral,
    @Nullable String clusterName,
    @Nullable String serviceName,
    @Nullable Map<String, String> metadata) {}
