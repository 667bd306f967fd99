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
   * Protection is triggered for a healthy-only view when, among the instances of its clusters and
   * selector (the part of the service it serves, not the whole) that an operator lets take traffic (enabled, of weight above 0), the share of healthy ones is below
   * the threshold. Instances taken out on purpose count neither way: disabling half a service for
   * a deploy does not trigger it. A view with no such instance never triggers.
   */
  public static boolean protectionTriggered(Collection<InstanceView> instances, ViewFilter filter, double threshold) {
    if (!filter.healthyOnly() || threshold <= 0) {
      return false;
    }
    int eligible = 0;
    int serving = 0;
    for (InstanceView instance : instances) {
      if (filter.includes(instance) && eligible(instance)) {
        eligible++;
        if (instance.healthy()) {
          serving++;
        }
      }
    }
    return eligible > 0 && (double) serving / eligible < threshold;
  }

  /**
   * Whether {@code instance} is in the view, given the view's protection state. A triggered
   * healthy-only view shows the unhealthy instances too, but never a disabled or weight-0 one.
   */
  public static boolean visible(InstanceView instance, ViewFilter filter, boolean protectionTriggered) {
    return filter.includes(instance)
        && (!filter.healthyOnly() || instance.servesTraffic() || protectionTriggered && eligible(instance));
  }

  /** Enabled and of weight above 0: an instance an operator lets take traffic, healthy or not. */
  private static boolean eligible(InstanceView instance) {
    return instance.enabled() && instance.weight() > 0;
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
