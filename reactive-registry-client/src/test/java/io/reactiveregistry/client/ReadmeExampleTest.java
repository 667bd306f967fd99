package io.reactiveregistry.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** The README's "Using the Java client" example: compiled, run against a real server, and kept verbatim in the README. */
class ReadmeExampleTest {

  /** The README shows the body of this method, between the markers, exactly. */
  static InstanceBody example(String serverAddress) {
    // README:start
    RegistryClient registry = RegistryClient.builder()
        .servers(serverAddress)                       // e.g. "tcp://127.0.0.1:7070"
        .clientName("orders-app")
        .build();

    // Register this application; the client heartbeats and registers again after reconnects.
    Registration me = registry.register(ServiceName.of("orders"),
            InstanceBody.of("127.0.0.5", 8080, null, 1.0, Map.of("zone", "a", "version", "v2")))
        .block();

    // Watch a service you call: complete views, pushed on every change.
    Disposable watching = registry.watch(ServiceName.of("orders"))
        .subscribe(view -> System.out.println(view.instances().size() + " instance(s) of orders"));

    // Pick an instance to call: weighted random among healthy, enabled ones.
    InstanceBody target = registry.choose(ServiceName.of("orders")).block();

    // Only part of a service: a selector over metadata (Kubernetes' label-selector grammar).
    Disposable canaries = registry.watch(ServiceName.of("orders"), Selection.healthy().matching("track=canary"))
        .subscribe(view -> System.out.println(view.instances().size() + " canary instance(s)"));
    InstanceBody v2 = registry.choose(ServiceName.of("orders"), null, "version in (v2,v3),!draining").block();

    watching.dispose();
    canaries.dispose();
    registry.close().block();                         // deregisters what it registered
    // README:end
    assertThat(me.instanceId()).isEqualTo("127.0.0.5#8080#DEFAULT");
    assertThat(v2).isEqualTo(target);
    return target;
  }

  @Test
  void theReadmeExampleRuns() {
    RegistryServer server = TestServers.start(0);
    try {
      assertThat(example(TestServers.address(server)).ip()).isEqualTo("127.0.0.5");
    } finally {
      server.disposeNow(Duration.ofSeconds(5));
    }
  }

  @Test
  void theReadmeShowsTheExampleVerbatim() throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/reactiveregistry/client/ReadmeExampleTest.java"));
    String body = source.substring(source.indexOf("// README:start") + "// README:start".length(),
        source.indexOf("    // README:end"));
    String example = body.lines().map(line -> line.replaceFirst("^    ", ""))
        .collect(Collectors.joining("\n")).strip();
    assertThat(readmeJavaBlock()).as("the Java block of README.md's 'Using the Java client' must be exactly the "
        + "example of ReadmeExampleTest").isEqualTo(example);
  }

  /** The first ```java block after the heading "## Using the Java client", without its fences. */
  private static String readmeJavaBlock() throws IOException {
    String readme = Files.readString(Path.of("../README.md"));
    int section = readme.indexOf("\n## Using the Java client\n");
    assertThat(section).as("README.md has a section 'Using the Java client'").isNotNegative();
    int open = readme.indexOf("```java\n", section);
    int close = readme.indexOf("\n```", open + 8);
    assertThat(open).as("a ```java block in that section").isNotNegative();
    return readme.substring(open + "```java\n".length(), close).strip();
  }
}
