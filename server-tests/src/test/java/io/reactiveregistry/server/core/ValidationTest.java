package io.reactiveregistry.server.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The core's value factories apply the contract's rules and report a violation as INVALID_PARAM. */
class ValidationTest {

  @Test
  void aMissingServiceIsRefusedAndNamespaceAndGroupDefault() {
    assertThatThrownBy(() -> ServiceKey.of(null, null, null))
        .isInstanceOfSatisfying(RegistryException.class, e -> assertThat(e.failure()).isEqualTo(Failure.INVALID_PARAM))
        .hasMessage("service is required");
    assertThat(ServiceKey.of(null, null, "orders")).isEqualTo(new ServiceKey("public", "DEFAULT_GROUP", "orders"));
  }

  @Test
  void instanceDefaultsAreClusterDefaultWeightOneEnabled() {
    InstanceSpec spec = InstanceSpec.of("instance", "127.0.0.1", 80, null, null, null, null);
    assertThat(spec).isEqualTo(new InstanceSpec("127.0.0.1", 80, "DEFAULT", 1.0, true, Map.of()));
    assertThat(spec.instanceId()).isEqualTo("127.0.0.1#80#DEFAULT");
  }

  @Test
  void anInvalidInstanceFieldIsRefusedAsInvalidParamNamingIt() {
    assertThatThrownBy(() -> InstanceSpec.of("instances[2]", "127.0.0.1", 0, null, null, null, null))
        .isInstanceOfSatisfying(RegistryException.class, e -> assertThat(e.failure()).isEqualTo(Failure.INVALID_PARAM))
        .hasMessage("instances[2].port must be between 1 and 65535");
    assertThatThrownBy(() -> ViewFilter.of(java.util.List.of("ok", "not ok"), true))
        .isInstanceOf(RegistryException.class).hasMessageStartingWith("clusters[1]");
  }
}
