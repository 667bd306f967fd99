package io.reactiveregistry.client;

import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.protocol.rules.Selector;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which part of a service a view shows: some clusters (empty: all), only the healthy instances or
 * all, and the instances a selector over their metadata selects (the contract's "Selectors":
 * {@code version=v2}, {@code zone in (a,b)}, {@code !canary}). Checked when made, so a bad
 * selector fails at the call that makes it, naming the position, not later on the wire.
 *
 * <pre>{@code
 * client.watch(orders, Selection.healthy().matching("version=v2,zone in (a,b)"))
 * }</pre>
 *
 * @param selector the selector in its canonical text (requirements and values sorted); empty:
 *     every instance
 */
public record Selection(List<String> clusters, boolean healthyOnly, String selector) {
  private static final Selection ALL = new Selection(List.of(), false, "");
  private static final Selection HEALTHY = new Selection(List.of(), true, "");

  public Selection {
    clusters = clusters == null ? List.of() : List.copyOf(clusters);
    for (int i = 0; i < clusters.size(); i++) {
      Names.require("clusters[" + i + "]", clusters.get(i));
    }
    selector = Selector.parse("selector", selector).toString();
  }

  /** Every instance of every cluster. */
  public static Selection all() {
    return ALL;
  }

  /** The healthy-only view, with the server's protection rule: what a caller picks instances from. */
  public static Selection healthy() {
    return HEALTHY;
  }

  /** This selection, in these clusters only. */
  public Selection inClusters(String... names) {
    return new Selection(List.of(names), healthyOnly, selector);
  }

  /**
   * This selection, narrowed to the instances {@code text} selects.
   *
   * @throws IllegalArgumentException naming the position when {@code text} is not a selector
   */
  public Selection matching(@Nullable String text) {
    return new Selection(clusters, healthyOnly, text == null ? "" : text);
  }

  /** The selector as the wire carries it: null when it selects everything. */
  @Nullable String wireSelector() {
    return selector.isEmpty() ? null : selector;
  }
}
