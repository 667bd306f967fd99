package io.reactiveregistry.server.nacos;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JSON body of any request a Nacos 2.x client sends, and of its answers to the server's
 * requests: the union of the fields of {@code InstanceRequest}, {@code BatchInstanceRequest},
 * {@code PersistentInstanceRequest}, {@code ServiceQueryRequest}, {@code SubscribeServiceRequest},
 * {@code ServiceListRequest}, {@code ConnectionSetupRequest} and {@code Response}; the payload's type
 * says which are meant. Fields Nacos adds later are ignored.
 */
record NacosMessage(
    @Nullable String requestId,
    @Nullable String namespace,
    @Nullable String serviceName,
    @Nullable String groupName,
    @Nullable String type,
    @Nullable NacosInstance instance,
    @Nullable List<NacosInstance> instances,
    @Nullable String cluster,
    @Nullable String clusters,
    @Nullable Boolean healthyOnly,
    @Nullable Boolean subscribe,
    @Nullable Integer pageNo,
    @Nullable Integer pageSize,
    @Nullable String clientVersion,
    @Nullable String tenant,
    @Nullable Map<String, String> labels,
    @Nullable Integer resultCode,
    @Nullable Integer errorCode,
    @Nullable String message) {}
