package io.reactiveregistry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.TraceEvent;
import org.junit.jupiter.api.Test;

/** How {@code registry-cli trace} prints a change: a traced one names its trace. */
class LinesTest {
  private static TraceEvent registered(String traceId) {
    return new TraceEvent(1_764_800_000_000L, 7L, "public", "DEFAULT_GROUP", "orders", "127.0.0.5#8080#DEFAULT",
        "REGISTER", "app@127.0.0.1:5000", null, "n1", null, null, null, traceId);
  }

  @Test
  void aTracedChangeNamesItsTraceAndAnotherDoesNot() {
    assertThat(Lines.trace(registered("4bf92f3577b34da6a3ce929d0e0e4736"))).isEqualTo("2025-12-03T22:13:20Z #7 REGISTER "
        + "public/DEFAULT_GROUP/orders 127.0.0.5#8080#DEFAULT connection=app@127.0.0.1:5000 node=n1 "
        + "trace=4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(Lines.trace(registered(null))).doesNotContain("trace=")
        .endsWith("connection=app@127.0.0.1:5000 node=n1");
  }
}
