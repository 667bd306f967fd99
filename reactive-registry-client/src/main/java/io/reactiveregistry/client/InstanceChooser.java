package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.InstanceBody;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Weighted random choice among instances that serve traffic (healthy, enabled, weight above 0),
 * preferring a cluster when asked and when that cluster has any. When the view's protection is
 * triggered (too few healthy instances for the service's {@code protectThreshold}), health is not
 * asked: traffic spreads over every enabled instance rather than focus on the few healthy ones,
 * as the server's healthy-only views do.
 */
public final class InstanceChooser {
  private final RandomGenerator random;

  public InstanceChooser(RandomGenerator random) {
    this.random = random;
  }

  /** @param preferredCluster null for no preference */
  public InstanceBody choose(ServiceView view, @Nullable String preferredCluster) {
    List<InstanceBody> candidates = candidates(view, preferredCluster);
    if (candidates.isEmpty()) {
      throw new NoInstanceAvailableException("service " + view.service() + " has no healthy, enabled instance of "
          + "weight above 0 (" + view.instances().size() + " instance(s) in its view)");
    }
    double total = 0;
    for (InstanceBody instance : candidates) {
      total += instance.weight();
    }
    double point = random.nextDouble() * total;
    for (InstanceBody instance : candidates) {
      point -= instance.weight();
      if (point < 0) {
        return instance;
      }
    }
    return candidates.get(candidates.size() - 1);
  }

  /**
   * The instances a choice is made among: those that serve traffic, in {@code preferredCluster}
   * when it has any; for a load balancer that makes its own choice.
   */
  public static List<InstanceBody> candidates(ServiceView view, @Nullable String preferredCluster) {
    boolean protection = view.protectionTriggered();
    List<InstanceBody> candidates = serving(view.instances(), preferredCluster, protection);
    if (candidates.isEmpty() && preferredCluster != null) {
      candidates = serving(view.instances(), null, protection);
    }
    return candidates;
  }

  private static List<InstanceBody> serving(List<InstanceBody> instances, String cluster, boolean protection) {
    List<InstanceBody> serving = new ArrayList<>();
    for (InstanceBody instance : instances) {
      boolean healthyEnough = protection || !Boolean.FALSE.equals(instance.healthy());
      boolean servesTraffic = healthyEnough && !Boolean.FALSE.equals(instance.enabled())
          && instance.weight() != null && instance.weight() > 0;
      if (servesTraffic && (cluster == null || cluster.equals(instance.cluster()))) {
        serving.add(instance);
      }
    }
    return serving;
  }
}
