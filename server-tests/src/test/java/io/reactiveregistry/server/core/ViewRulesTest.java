package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ViewRulesTest {

  private static InstanceView instance(String cluster, boolean healthy, boolean enabled, double weight) {
    return new InstanceView("127.0.0.1#1#" + cluster, "127.0.0.1", 1, cluster, weight, enabled, healthy, true, Map.of());
  }

  @ParameterizedTest(name = "healthy={0} enabled={1} weight={2} healthyOnly={3} protected={4} -> {5}")
  @CsvSource({
      "true,  true,  1.0, true,  false, true",
      "false, true,  1.0, true,  false, false",
      "true,  false, 1.0, true,  false, false",
      "true,  true,  0.0, true,  false, false",
      "false, false, 0.0, false, false, true",
      "false, true,  1.0, true,  true,  true",
      // Protection shows unhealthy instances, never one taken out of traffic by an operator.
      "false, false, 1.0, true,  true,  false",
      "true,  true,  0.0, true,  true,  false",
  })
  void visibilityFollowsHealthEnabledWeightAndProtection(boolean healthy, boolean enabled, double weight,
      boolean healthyOnly, boolean triggered, boolean visible) {
    ViewFilter filter = new ViewFilter(Set.of(), healthyOnly);
    assertThat(ViewRules.visible(instance("DEFAULT", healthy, enabled, weight), filter, triggered)).isEqualTo(visible);
  }

  @Test
  void aClusterFilterShowsOnlyThoseClusters() {
    ViewFilter filter = new ViewFilter(Set.of("a"), false);
    assertThat(ViewRules.visible(instance("a", true, true, 1), filter, false)).isTrue();
    assertThat(ViewRules.visible(instance("b", true, true, 1), filter, false)).isFalse();
    assertThat(ViewRules.visible(instance("b", true, true, 1), filter, true)).isFalse();
  }

  @ParameterizedTest(name = "{0} of {1} serving, threshold {2} -> {3}")
  @CsvSource({
      "1, 4, 0.5, true",
      "2, 4, 0.5, false",
      "0, 4, 0.0, false",
      "0, 0, 0.9, false",
      "3, 4, 0.8, true",
      "4, 4, 1.0, false",
  })
  void protectionTriggersWhenTheServingShareIsBelowTheThreshold(int serving, int total, double threshold,
      boolean triggered) {
    List<InstanceView> instances = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      instances.add(instance("DEFAULT", i < serving, true, 1));
    }
    assertThat(ViewRules.protectionTriggered(instances, new ViewFilter(Set.of(), true), threshold)).isEqualTo(triggered);
  }

  @Test
  void protectionCountsOnlyTheViewsClustersAndOnlyForHealthyOnlyViews() {
    List<InstanceView> instances = List.of(instance("a", false, true, 1), instance("b", true, true, 1),
        instance("b", true, true, 1));
    assertThat(ViewRules.protectionTriggered(instances, new ViewFilter(Set.of("a"), true), 0.5)).isTrue();
    assertThat(ViewRules.protectionTriggered(instances, new ViewFilter(Set.of("b"), true), 0.5)).isFalse();
    assertThat(ViewRules.protectionTriggered(instances, new ViewFilter(Set.of("a"), false), 0.5)).isFalse();
  }

  @Test
  void instancesTakenOutOfTrafficCountNeitherWayInTheProtectionShare() {
    // Two of four disabled for a deploy, the other two healthy: 2 of 2 serve, no protection.
    List<InstanceView> deploy = List.of(instance("DEFAULT", true, true, 1), instance("DEFAULT", true, true, 1),
        instance("DEFAULT", true, false, 1), instance("DEFAULT", true, true, 0));
    assertThat(ViewRules.protectionTriggered(deploy, new ViewFilter(Set.of(), true), 0.8)).isFalse();
    // One of the two that may take traffic unhealthy: 1 of 2, below 0.8.
    List<InstanceView> failing = List.of(instance("DEFAULT", true, true, 1), instance("DEFAULT", false, true, 1),
        instance("DEFAULT", true, false, 1), instance("DEFAULT", true, true, 0));
    assertThat(ViewRules.protectionTriggered(failing, new ViewFilter(Set.of(), true), 0.8)).isTrue();
    // Every instance disabled: nothing to protect.
    assertThat(ViewRules.protectionTriggered(List.of(instance("DEFAULT", false, false, 1)),
        new ViewFilter(Set.of(), true), 0.8)).isFalse();
  }

  private static InstanceView versioned(String version, boolean healthy) {
    return new InstanceView("127.0.0.1#" + version + healthy, "127.0.0.1", 1, "DEFAULT", 1, true, healthy, true,
        Map.of("version", version));
  }

  @Test
  void aSelectorShowsOnlyTheInstancesItSelectsEvenUnderProtection() {
    ViewFilter v2 = ViewFilter.of(null, true, "version=v2");
    assertThat(ViewRules.visible(versioned("v2", true), v2, false)).isTrue();
    assertThat(ViewRules.visible(versioned("v1", true), v2, false)).isFalse();
    assertThat(ViewRules.visible(versioned("v1", false), v2, true)).as("protection stays inside the selection")
        .isFalse();
  }

  @Test
  void protectionIsComputedOnTheSelectedInstancesNotTheWholeService() {
    // v1: 3 healthy; v2: 1 of 3 healthy. The whole service is 4 of 6 (above 0.5), v2 alone 1 of 3.
    List<InstanceView> instances = List.of(versioned("v1", true), versioned("v1", true), versioned("v1", true),
        versioned("v2", true), versioned("v2", false), versioned("v2", false));
    assertThat(ViewRules.protectionTriggered(instances, ViewFilter.of(null, true), 0.5)).isFalse();
    assertThat(ViewRules.protectionTriggered(instances, ViewFilter.of(null, true, "version=v2"), 0.5)).isTrue();
    assertThat(ViewRules.protectionTriggered(instances, ViewFilter.of(null, true, "version=v1"), 0.5)).isFalse();
  }

  @Test
  void filtersWithTheSameSelectorInAnyOrderAreOneView() {
    assertThat(ViewFilter.of(null, true, "zone in (b,a), version=v2"))
        .isEqualTo(ViewFilter.of(null, true, "version==v2,zone in (a,b)"));
    assertThat(ViewFilter.of(null, true, " ")).isEqualTo(ViewFilter.of(null, true));
  }

  @Test
  void aBadSelectorIsAnInvalidParamNamingTheFieldAndThePosition() {
    assertThatThrownBy(() -> ViewFilter.of(null, false, "version in v2"))
        .isInstanceOfSatisfying(RegistryException.class,
            refused -> assertThat(refused.failure()).isEqualTo(Failure.INVALID_PARAM))
        .hasMessage("selector is not a valid selector: at position 12, expected '(' to open the values of "
            + "'version' (found 'v')");
  }
}
