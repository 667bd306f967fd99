package io.reactiveregistry.interop.eureka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.LifecycleConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * An Eureka application killed with SIGKILL sends no cancel: its instance goes when its lease ends
 * (3 s here), through expiry, as Eureka evicts it; an RSocket subscriber is pushed the removal.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class KilledEurekaApplicationTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aKilledApplicationsInstanceGoesWhenItsLeaseEnds(@TempDir Path dir) throws Exception {
    // Without self-preservation: the one instance there is stops renewing on purpose.
    LifecycleConfig defaults = LifecycleConfig.DEFAULTS;
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback().withLifecycle(new LifecycleConfig(
        defaults.emptyServiceCleanup(), defaults.overrideRetention(), false, defaults.selfPreservationWindow(),
        defaults.selfPreservationThreshold()))).block(WAIT);
    RegistryClient rsocket = RegistryClient.builder().servers("tcp://127.0.0.1:" + server.tcpPort())
        .clientName("witness").build();
    List<ServiceEvent> pushed = new CopyOnWriteArrayList<>();
    Disposable subscription = rsocket.events(ServiceName.of("payments"), null, false).subscribe(pushed::add);
    Path log = dir.resolve("app.log");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), EurekaApp.class.getName()));
    command.addAll(List.of(EurekaApp.arguments("http://127.0.0.1:" + server.httpPort() + "/eureka/", "payments",
        "payments-1")));
    Process app = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      await().atMost(WAIT).until(() -> SpringCloudEurekaClientTest.upserted(pushed, "payments-1") != null);
      String id = SpringCloudEurekaClientTest.upserted(pushed, "payments-1").instanceId();

      app.destroyForcibly(); // SIGKILL: no shutdown hook, no cancel
      app.waitFor();
      long killed = System.nanoTime();
      await().atMost(WAIT).until(() -> pushed.stream().anyMatch(event -> ServiceEvent.REMOVE.equals(event.type())
          && id.equals(event.instanceId())));
      long tookMillis = (System.nanoTime() - killed) / 1_000_000;
      // Its last renewal came at most a second before the kill, and the lease is 3 s.
      assertThat(tookMillis).as("removed %d ms after the kill", tookMillis).isGreaterThanOrEqualTo(1_500);
    } finally {
      app.destroyForcibly().waitFor();
      subscription.dispose();
      rsocket.closeAndWait();
      server.disposeNow(WAIT);
      if (app.exitValue() != 137 && app.exitValue() != 9 && Files.exists(log)) {
        System.out.println(Files.readString(log));
      }
    }
  }
}
