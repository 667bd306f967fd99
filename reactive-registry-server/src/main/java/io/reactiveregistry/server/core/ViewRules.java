package io.reactiveregistry.server.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The contract's view rules as pure functions: which instances a view shows, and when the
 * protection threshold makes a healthy-only view show every instance of its clusters.
 */
public final class ViewRules {
  private ViewRules() {}

  /**
   * Protection is triggered for a healthy-only view when the share of instances serving traffic
   * among those of its clusters is below the threshold. An empty view never triggers.
   */
  public static boolean protectionTriggered(Collection<InstanceView> instances, ViewFilter filter, double threshold) {
    if (!filter.healthyOnly() || threshold <= 0) {
      return false;
    }
    int total = 0;
    int serving = 0;
    for (InstanceView instance : instances) {
      if (filter.includesCluster(instance.cluster())) {
        total++;
        if (instance.servesTraffic()) {
          serving++;
        }
      }
    }
    return total > 0 && (double) serving / total < threshold;
  }

  /** Whether {@code instance} is in the view, given the view's protection state. */
  public static boolean visible(InstanceView instance, ViewFilter filter, boolean protectionTriggered) {
    return filter.includesCluster(instance.cluster())
        && (!filter.healthyOnly() || protectionTriggered || instance.servesTraffic());
  }

  static List<InstanceView> select(Collection<InstanceView> instances, ViewFilter filter, boolean protectionTriggered) {
    List<InstanceView> selected = new ArrayList<>(instances.size());
    for (InstanceView instance : instances) {
      if (visible(instance, filter, protectionTriggered)) {
        selected.add(instance);
      }
    }
    return selected;
  }
}
