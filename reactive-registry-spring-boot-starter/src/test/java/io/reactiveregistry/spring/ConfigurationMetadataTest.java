package io.reactiveregistry.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactiveregistry.protocol.Protocol;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** IDEs complete the starter's properties from the metadata the build generates: every one is there, described. */
class ConfigurationMetadataTest {

  @Test
  void everyPropertyIsDescribedWithItsDefault() throws Exception {
    Map<String, JsonNode> properties = new HashMap<>();
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("generated metadata on the class path").isNotNull();
      for (JsonNode property : new ObjectMapper().readTree(in).get("properties")) {
        properties.put(property.get("name").asText(), property);
      }
    }
    assertThat(properties).containsKeys("reactive-registry.enabled", "reactive-registry.servers",
        "reactive-registry.namespace", "reactive-registry.group", "reactive-registry.client-name",
        "reactive-registry.zone", "reactive-registry.token", "reactive-registry.connect-timeout", "reactive-registry.request-timeout",
        "reactive-registry.reconnect-min-backoff", "reactive-registry.reconnect-max-backoff",
        "reactive-registry.tls.trusted-certificates", "reactive-registry.tls.certificate", "reactive-registry.tls.key",
        "reactive-registry.discovery.enabled", "reactive-registry.discovery.preferred-cluster",
        "reactive-registry.discovery.selectors",
        "reactive-registry.registration.enabled", "reactive-registry.registration.service",
        "reactive-registry.registration.ip", "reactive-registry.registration.port",
        "reactive-registry.registration.cluster", "reactive-registry.registration.weight",
        "reactive-registry.registration.ephemeral", "reactive-registry.registration.secure",
        "reactive-registry.registration.metadata", "reactive-registry.registration.deregister-grace");
    for (JsonNode property : properties.values()) {
      assertThat(property.path("description").asText()).as(property.get("name").asText()).isNotBlank()
          .doesNotContain("{@");
    }
    assertThat(properties.get("reactive-registry.registration.cluster").get("defaultValue").asText())
        .isEqualTo(Protocol.DEFAULT_CLUSTER);
    assertThat(properties.get("reactive-registry.namespace").get("defaultValue").asText())
        .isEqualTo(Protocol.DEFAULT_NAMESPACE);
    assertThat(properties.get("reactive-registry.group").get("defaultValue").asText())
        .isEqualTo(Protocol.DEFAULT_GROUP);
    assertThat(properties.get("reactive-registry.servers").get("defaultValue").get(0).asText())
        .isEqualTo("tcp://127.0.0.1:" + Protocol.DEFAULT_TCP_PORT);
    assertThat(properties.get("reactive-registry.request-timeout").get("defaultValue").asText()).isEqualTo("10s");
  }
}
