package io.reactiveregistry.server.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.wire.WireViews;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A snapshot written from its instances' kept JSON is byte for byte the one the codec writes for
 * the whole event, however the view changes between two snapshots.
 */
class SnapshotEncoderTest {
  private final SnapshotEncoder encoder = new SnapshotEncoder();

  private static InstanceView instance(int port, double weight, Map<String, String> metadata) {
    return new InstanceView("127.0.0.1#" + port + "#DEFAULT", "127.0.0.1", port, "DEFAULT", weight, true, true, true,
        metadata);
  }

  private static ServiceEvent snapshot(String service, long revision, List<InstanceView> instances) {
    List<io.reactiveregistry.protocol.message.InstanceBody> bodies = instances.stream().map(WireViews::instance)
        .toList();
    return ServiceEvent.snapshot(new ServiceSnapshot("public", "DEFAULT_GROUP", service, true, revision, false,
        bodies), "node-a");
  }

  private void assertSameAsTheCodec(String service, long revision, List<InstanceView> instances) {
    ServiceEvent message = snapshot(service, revision, instances);
    byte[] written = encoder.encode(message, instances);
    assertThat(new String(written, StandardCharsets.UTF_8))
        .isEqualTo(new String(JsonCodec.json().encode(message), StandardCharsets.UTF_8));
    assertThat(JsonCodec.json().decode(written, ServiceEvent.class)).isEqualTo(message);
  }

  @Test
  void aViewChangingBetweenSnapshotsIsWrittenAsTheCodecWouldWriteIt() {
    List<InstanceView> view = new ArrayList<>();
    assertSameAsTheCodec("orders", 1, view);
    for (int port = 8000; port < 8040; port++) {
      view.add(instance(port, 1.0, Map.of("zone", "a", "note", "quote \" and \\ and é and \u2028")));
      assertSameAsTheCodec("orders", port, view);
    }
    view.set(3, instance(8003, 0.5, Map.of())); // changed: written anew, not from what was kept
    view.remove(10); // gone
    assertSameAsTheCodec("orders", 100, view);
    view.subList(5, view.size()).clear(); // most gone: what was kept for them is let go
    assertSameAsTheCodec("orders", 101, view);
    view.add(instance(8039, 2.0, Map.of("back", "again")));
    assertSameAsTheCodec("orders", 102, view);
  }

  @Test
  void theEnvelopesOwnStringsCannotBeMistakenForTheInstancesField() {
    List<InstanceView> view = List.of(instance(9000, 1.0, Map.of("\"instances\":[]", "\"instances\":[]")));
    assertSameAsTheCodec("odd\"instances\":[]name", 7, view);
  }
}
