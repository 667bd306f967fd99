package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "Moving from Eureka" curl lines, run as written against a server on a free port:
 * each succeeds, the fetches answer Eureka's JSON, the status override disables the instance in
 * the registry's own view, and the cancel removes it.
 */
class ReadmeEurekaTest {
  private final ServerFixture fixture = new ServerFixture();

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void theReadmesEurekaLinesRun() throws Exception {
    List<String> lines = ReadmeShell.firstBlockUnder("## Moving from Eureka");
    String base = lines.get(0).replace("7080", String.valueOf(fixture.server().httpPort()));
    assertThat(base).startsWith("EUREKA=http://127.0.0.1:");
    List<String> curls = lines.subList(1, lines.size());
    assertThat(curls).hasSize(6).allMatch(line -> line.startsWith("curl "));

    for (String line : curls) {
      ReadmeShell.Ran ran = ReadmeShell.run(base, line);
      String out = ran.output();
      assertThat(ran.exit()).as(line + "\n" + out).isZero();
      if (line.contains("$EUREKA/apps\n") || line.endsWith("$EUREKA/apps") || line.endsWith("/apps/delta")) {
        assertThat(out).as(line).startsWith("{\"applications\":").contains("\"instanceId\":\"orders-1\"");
      }
      if (line.contains("status?value=OUT_OF_SERVICE")) {
        assertThat(orders()).extracting(InstanceBody::enabled).containsExactly(false);
      }
    }
    assertThat(orders()).isEmpty();
  }

  private List<InstanceBody> orders() {
    return JsonCodec.json().decode(fixture.connect("witness").call("service.query", "{\"service\":\"orders\"}"),
        ServiceSnapshot.class).instances();
  }
}
