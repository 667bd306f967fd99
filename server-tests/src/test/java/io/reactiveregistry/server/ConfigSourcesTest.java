package io.reactiveregistry.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A flag wins over the environment, which wins over the file, which wins over the default. */
class ConfigSourcesTest {
  @TempDir
  Path dir;

  private ServerConfig parse(Map<String, String> environment, String... args) {
    CommandLine commandLine = Main.commandLine(args, environment);
    commandLine.parseArgs(args);
    return ((Main) commandLine.getCommand()).toConfig();
  }

  @Test
  void eachSourceOverridesTheNextOne() throws Exception {
    Path file = dir.resolve("registry.properties");
    Files.writeString(file, "port=7100\nhttp-port=7101\nmax-payload-bytes=2048\nself-preservation=false\n");

    ServerConfig fromFile = parse(Map.of(), "--config-file", file.toString());
    assertThat(fromFile.tcpPort()).isEqualTo(7100);
    assertThat(fromFile.httpPort()).isEqualTo(7101);
    assertThat(fromFile.limits().maxPayloadBytes()).isEqualTo(2048);
    assertThat(fromFile.lifecycle().selfPreservation()).isFalse();
    assertThat(fromFile.webSocketPort()).isEqualTo(7071);

    ServerConfig environmentWins = parse(Map.of("REGISTRY_PORT", "7200", "REGISTRY_CONFIG_FILE", file.toString()));
    assertThat(environmentWins.tcpPort()).isEqualTo(7200);
    assertThat(environmentWins.httpPort()).isEqualTo(7101);

    ServerConfig flagWins = parse(Map.of("REGISTRY_PORT", "7200"), "--config-file=" + file, "--port", "7300");
    assertThat(flagWins.tcpPort()).isEqualTo(7300);

    ServerConfig defaults = parse(Map.of());
    assertThat(defaults.tcpPort()).isEqualTo(7070);
    assertThat(defaults.limits().maxPayloadBytes()).isEqualTo(1_048_576);
  }
}
