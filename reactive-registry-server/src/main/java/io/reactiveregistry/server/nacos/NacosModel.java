package io.reactiveregistry.server.nacos;

import io.reactiveregistry.protocol.message.BatchRegistration;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceRef;
import io.reactiveregistry.protocol.message.Query;
import io.reactiveregistry.protocol.message.Registration;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How Nacos's names and instances map onto this registry's, in one place. A Nacos namespace id is
 * a namespace ({@code ""} is {@code public}, as in Nacos), its group a group, its service a service
 * (a {@code group@@service} name gives the group too), its {@code clusterName} the cluster, and
 * {@code weight}, {@code enabled} and {@code metadata} (the {@code preserved.*} keys included) keep
 * their meaning.
 */
final class NacosModel {
  static final String DEFAULT_NAMESPACE = "public";
  static final String DEFAULT_GROUP = "DEFAULT_GROUP";
  /** How often a Nacos client that is not pushed to polls a service it subscribed to: Nacos's default. */
  static final long CACHE_MILLIS = 10_000;
  private static final String GROUP_SEPARATOR = "@@";

  private NacosModel() {}

  /** A service as a Nacos request names it. */
  record Name(String namespace, String group, String service) {
    /** Nacos's grouped name, {@code group@@service}: what its clients key their caches by. */
    String grouped() {
      return group + GROUP_SEPARATOR + service;
    }
  }

  /**
   * The names a request gives, defaulted as Nacos defaults them. The rules of names are the
   * registry's, applied where the request is decoded; only the absent ones are filled here.
   */
  static Name name(@Nullable String namespace, @Nullable String group, @Nullable String service) {
    String ns = namespace == null || namespace.isBlank() ? DEFAULT_NAMESPACE : namespace;
    String grp = group == null || group.isBlank() ? DEFAULT_GROUP : group;
    if (service != null) {
      int split = service.indexOf(GROUP_SEPARATOR);
      if (split > 0) {
        grp = service.substring(0, split);
        service = service.substring(split + GROUP_SEPARATOR.length());
      }
    }
    return new Name(ns, grp, service == null || service.isBlank() ? null : service);
  }

  static Registration registration(Name name, NacosInstance instance, boolean ephemeral) {
    return new Registration(name.namespace(), name.group(), name.service(), ephemeral, body(instance));
  }

  static InstanceRef ref(Name name, NacosInstance instance) {
    return new InstanceRef(name.namespace(), name.group(), name.service(),
        InstanceBody.ref(instance.ip(), instance.port() == null ? 0 : instance.port(), instance.clusterName()));
  }

  static BatchRegistration batch(Name name, List<NacosInstance> instances) {
    return new BatchRegistration(name.namespace(), name.group(), name.service(),
        instances.stream().map(NacosModel::body).toList());
  }

  private static InstanceBody body(NacosInstance instance) {
    return new InstanceBody(null, instance.ip(), instance.port(), instance.clusterName(), instance.weight(),
        instance.enabled(), null, null, instance.metadata());
  }

  /** A query of the view a Nacos client asks for; {@code clusters} is Nacos's comma-separated list. */
  static Query query(Name name, @Nullable String clusters, boolean healthyOnly) {
    return new Query(name.namespace(), name.group(), name.service(), clusterList(clusters), healthyOnly);
  }

  static @Nullable List<String> clusterList(@Nullable String clusters) {
    if (clusters == null || clusters.isBlank()) {
      return null;
    }
    return Arrays.stream(clusters.split(",")).map(String::trim).filter(cluster -> !cluster.isEmpty()).toList();
  }

  /**
   * The view as Nacos's {@code ServiceInfo}: enabled instances only, as Nacos pushes and answers
   * them ({@code clusters} as the client asked, so that its cache key matches).
   */
  static ServiceInfo serviceInfo(ServiceSnapshot snapshot, @Nullable String clusters, long now) {
    String grouped = snapshot.group() + GROUP_SEPARATOR + snapshot.service();
    List<NacosInstance> hosts = new ArrayList<>(snapshot.instances().size());
    for (InstanceBody instance : snapshot.instances()) {
      if (!Boolean.FALSE.equals(instance.enabled())) {
        hosts.add(new NacosInstance(instance.instanceId(), instance.ip(), instance.port(), instance.weight(),
            instance.healthy(), instance.enabled(), instance.ephemeral(), instance.cluster(), grouped,
            instance.metadata()));
      }
    }
    return new ServiceInfo(snapshot.service(), snapshot.group(), clusters == null ? "" : clusters, CACHE_MILLIS,
        hosts, now, "", false, snapshot.protectionTriggered());
  }
}
