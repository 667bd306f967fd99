package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.nacos.NacosDoor;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "Moving from Nacos" curl lines, run as written against a server whose Nacos port
 * is a free one: each succeeds, the registration shows in the registry's own view with its weight
 * and metadata, the list and the service list answer Nacos's JSON, and the deregistration removes
 * it.
 */
class ReadmeNacosTest {
  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withNacos(new NacosDoor.Settings(0, 0)));

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void theReadmesNacosLinesRun() throws Exception {
    List<String> lines = ReadmeShell.firstBlockUnder("## Moving from Nacos");
    String base = lines.get(0).replace("8848", String.valueOf(fixture.server().nacosHttpPort()));
    assertThat(base).startsWith("NACOS=http://127.0.0.1:");
    List<String> curls = lines.subList(1, lines.size());
    assertThat(curls).hasSize(5).allMatch(line -> line.startsWith("curl "));

    for (String line : curls) {
      ReadmeShell.Ran ran = ReadmeShell.run(base, line);
      String out = ran.output();
      assertThat(ran.exit()).as(line + "\n" + out).isZero();
      if (line.contains("-X POST")) {
        assertThat(out).isEqualTo("ok");
        InstanceBody registered = orders().get(0);
        assertThat(registered.weight()).isEqualTo(2.0);
        assertThat(registered.metadata()).containsEntry("zone", "a");
      }
      if (line.contains("/instance/beat")) {
        assertThat(out).contains("\"code\":10200");
      }
      if (line.contains("/instance/list")) {
        assertThat(out).startsWith("{\"name\":\"DEFAULT_GROUP@@orders\"").contains("\"port\":8080");
      }
      if (line.contains("/service/list")) {
        assertThat(out).contains("\"doms\":[\"orders\"]");
      }
    }
    assertThat(orders()).isEmpty();
  }

  private List<InstanceBody> orders() {
    return JsonCodec.json().decode(fixture.connect("witness").call("service.query", "{\"service\":\"orders\"}"),
        ServiceSnapshot.class).instances();
  }
}
