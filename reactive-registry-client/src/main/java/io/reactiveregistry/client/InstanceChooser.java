package io.reactiveregistry.client;

import io.reactiveregistry.protocol.message.InstanceBody;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Weighted random choice among instances that serve traffic (healthy, enabled, weight above 0),
 * preferring a cluster when asked and when that cluster has any, then the caller's zone (instances
 * whose metadata {@code zone} is the client's) when it has any. When the view's protection is
 * triggered (too few healthy instances for the service's {@code protectThreshold}), health is not
 * asked: traffic spreads over every enabled instance rather than focus on the few healthy ones,
 * as the server's healthy-only views do.
 */
public final class InstanceChooser {
  /** The instance metadata key that names an instance's zone. */
  public static final String ZONE_KEY = "zone";

  private final RandomGenerator random;
  private final @Nullable String zone;

  public InstanceChooser(RandomGenerator random) {
    this(random, null);
  }

  /** @param zone the caller's zone, preferred among the instances (null: none) */
  public InstanceChooser(RandomGenerator random, @Nullable String zone) {
    this.random = random;
    this.zone = zone;
  }

  /** @param preferredCluster null for no preference */
  public InstanceBody choose(ServiceView view, @Nullable String preferredCluster) {
    List<InstanceBody> candidates = candidates(view, preferredCluster, zone);
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
    return candidates(view, preferredCluster, null);
  }

  /**
   * The same, then those of {@code zone} (metadata {@code zone}) when any of them serves traffic:
   * a zone with none left sends its traffic to the others rather than nowhere.
   */
  public static List<InstanceBody> candidates(ServiceView view, @Nullable String preferredCluster,
      @Nullable String zone) {
    boolean protection = view.protectionTriggered();
    List<InstanceBody> candidates = serving(view.instances(), preferredCluster, protection);
    if (candidates.isEmpty() && preferredCluster != null) {
      candidates = serving(view.instances(), null, protection);
    }
    if (zone != null) {
      List<InstanceBody> inZone = candidates.stream()
          .filter(instance -> instance.metadata() != null && zone.equals(instance.metadata().get(ZONE_KEY)))
          .toList();
      if (!inZone.isEmpty()) {
        return inZone;
      }
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
