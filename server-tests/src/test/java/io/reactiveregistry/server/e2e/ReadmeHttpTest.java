package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's "HTTP for clients without RSocket" lines, run with curl as written; only the port
 * changes (the test's server listens on a free one). The watch, which runs until Ctrl-C, is
 * stopped after a second and must have printed the view's SNAPSHOT as a server-sent event.
 */
class ReadmeHttpTest {
  private final ServerFixture fixture = new ServerFixture();

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void theReadmesCurlLinesRun() throws Exception {
    List<String> lines = ReadmeShell.firstBlockUnder("## HTTP for clients without RSocket");
    String api = lines.get(0).replace("7080", String.valueOf(fixture.server().httpPort()));
    assertThat(api).startsWith("API=http://127.0.0.1:");
    List<String> curls = lines.subList(1, lines.size());
    assertThat(curls).hasSize(10).allMatch(line -> line.startsWith("curl "));

    for (String line : curls) {
      boolean watch = line.contains("/watch/") || line.contains("/catalog/");
      ReadmeShell.Ran ran = ReadmeShell.run(api, (watch ? "timeout 1 " : "") + line);
      String out = ran.output();
      if (watch) {
        assertThat(out).as(line).contains("event: SNAPSHOT").contains("data: {\"type\":\"SNAPSHOT\"");
        if (line.contains("/catalog/")) { // orders, registered above, is among the namespace's services
          assertThat(out).as(line).contains("\"service\":\"orders\"");
        }
      } else {
        assertThat(ran.exit()).as(line + "\n" + out).isZero();
        assertThat(out).as(line).startsWith("{");
      }
      if (line.contains("selector=")) { // the instance registered above has lang=go
        assertThat(out).as(line).contains("\"ip\":\"127.0.0.5\"");
      }
      if (line.contains("admin.instance.patch")) {
        ServiceSnapshot orders = JsonCodec.json().decode(fixture.connect("witness").call("service.query",
            "{\"service\":\"orders\"}"), ServiceSnapshot.class);
        assertThat(orders.instances()).extracting(InstanceBody::weight).containsExactly(2.0);
      }
    }
  }
}
