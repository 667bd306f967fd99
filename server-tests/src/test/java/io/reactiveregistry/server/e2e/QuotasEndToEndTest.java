package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.Quotas;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Quotas over the wire: the contract's LIMIT_EXCEEDED naming the quota; the connection and the data stay. */
class QuotasEndToEndTest {
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withQuotas(new Quotas(2, 100, 100, 100, 100, 4 * 1024, 2 * 1024)));

  @AfterEach
  void stop() {
    fixture.close();
  }

  private static String persistent(String namespace, int port, int metadataBytes) {
    return "{\"namespace\":\"" + namespace + "\",\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.5\","
        + "\"port\":" + port + ",\"metadata\":{\"k\":\"" + "x".repeat(metadataBytes - 1) + "\"}}}";
  }

  @Test
  void durableMetadataPastTheNamespacesQuotaIsRefusedAndTheConnectionGoesOn() {
    WireClient client = fixture.connect("filler");
    client.call("instance.register", persistent("team-a", 1, 1_000));
    client.call("instance.register", persistent("team-a", 2, 1_000));

    ErrorBody refused = client.error("instance.register", persistent("team-a", 3, 1_000));
    assertThat(refused.code()).isEqualTo("LIMIT_EXCEEDED");
    assertThat(refused.message()).contains("namespace team-a's quota of 2048 bytes")
        .contains("--max-durable-metadata-bytes-per-namespace");

    // Another namespace has its own room; a third namespace is past --max-namespaces.
    client.call("instance.register", persistent("team-b", 1, 1_000));
    assertThat(client.error("instance.register", Registrations.registration("web", "127.0.0.6", 80))
        .message()).contains("--max-namespaces");

    ServiceSnapshot db = client.call("service.query", "{\"namespace\":\"team-a\",\"service\":\"db\"}",
        ServiceSnapshot.class);
    assertThat(db.instances()).hasSize(2);
    assertThat(fixture.server().meters().get("registry.durable.metadata.bytes").gauge().value()).isEqualTo(3_000);
  }
}
