package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.InstanceBody;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Weighted random choice among instances that serve traffic (healthy, enabled, weight above 0),
 * preferring a cluster when asked and when that cluster has any.
 */
public final class InstanceChooser {
  private final RandomGenerator random;

  public InstanceChooser(RandomGenerator random) {
    this.random = random;
  }

  /** @param preferredCluster null for no preference */
  public InstanceBody choose(ServiceView view, String preferredCluster) {
    List<InstanceBody> candidates = serving(view.instances(), preferredCluster);
    if (candidates.isEmpty() && preferredCluster != null) {
      candidates = serving(view.instances(), null);
    }
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

  private static List<InstanceBody> serving(List<InstanceBody> instances, String cluster) {
    List<InstanceBody> serving = new ArrayList<>();
    for (InstanceBody instance : instances) {
      boolean servesTraffic = !Boolean.FALSE.equals(instance.healthy()) && !Boolean.FALSE.equals(instance.enabled())
          && instance.weight() != null && instance.weight() > 0;
      if (servesTraffic && (cluster == null || cluster.equals(instance.cluster()))) {
        serving.add(instance);
      }
    }
    return serving;
  }
}
