package io.reactiveregistry.loadtest.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** A lean storm client's view follows the events' bytes as a full client's follows the events. */
class ViewEventsTest {
  private final BitSet view = new BitSet();

  private void apply(String json) {
    ViewEvents.apply(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8), view);
  }

  private static String instance(int member) {
    return "{\"instanceId\":\"" + LeanStormClient.ip(member) + "#8080#DEFAULT\",\"ip\":\"" + LeanStormClient.ip(member)
        + "\",\"port\":8080,\"metadata\":{}}";
  }

  @Test
  void aSnapshotStartsTheViewAfreshAndChangesFollow() {
    view.set(999);
    apply("{\"type\":\"SNAPSHOT\",\"revision\":5,\"service\":\"fleet\",\"instances\":[" + instance(0) + ","
        + instance(1) + "," + instance(250) + "," + instance(749) + "],\"node\":\"n1\"}");
    assertThat(view.stream().toArray()).containsExactly(0, 1, 250, 749);

    apply("{\"type\":\"UPSERT\",\"revision\":6,\"instance\":" + instance(300) + "}");
    apply("{\"type\":\"REMOVE\",\"revision\":7,\"instanceId\":\"" + LeanStormClient.ip(1) + "#8080#DEFAULT\"}");
    assertThat(view.stream().toArray()).containsExactly(0, 250, 300, 749);
  }

  @Test
  void aBatchsEventsApplyInTheirOrder() {
    apply("{\"type\":\"SNAPSHOT\",\"instances\":[" + instance(3) + "]}");
    apply("{\"type\":\"BATCH\",\"revision\":9,\"events\":[{\"type\":\"UPSERT\",\"revision\":8,\"instance\":"
        + instance(4) + "},{\"type\":\"REMOVE\",\"revision\":9,\"instanceId\":\"" + LeanStormClient.ip(3)
        + "#8080#DEFAULT\"},{\"type\":\"UPSERT\",\"revision\":9,\"instance\":" + instance(5) + "}]}");
    assertThat(view.stream().toArray()).containsExactly(4, 5);

    apply("{\"type\":\"SERVICE_DELETED\",\"revision\":10}");
    assertThat(view.isEmpty()).isTrue();
  }

  @Test
  void idsOutsideTheFleetAreIgnored() {
    apply("{\"type\":\"SNAPSHOT\",\"instances\":[{\"instanceId\":\"127.0.0.1#9999#DEFAULT\"},"
        + "{\"instanceId\":\"10.0.0.1#8080#DEFAULT\"},{\"instanceId\":\"127.0.x.1#8080#DEFAULT\"},"
        + "{\"instanceId\":\"127.0.0.251#8080#DEFAULT\"},{\"instanceId\":\"127.0.0.0#8080#DEFAULT\"}]}");
    // 127.0.0.1 is member 0, whatever its port: the fleet's form is the address.
    assertThat(view.stream().toArray()).containsExactly(0);
  }
}
