package io.reactiveregistry.interop.eureka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.Main;
import io.reactiveregistry.server.e2e.MemberPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.Disposable;

/**
 * A three-member cluster, every member in the Eureka application's {@code defaultZone}: the member
 * holding its instance is killed with SIGKILL, the client fails over as it does between Eureka
 * peers (its renewal on another member is answered 404, it registers there, which takes the
 * instance over), and the instance stays in every surviving member's views: a subscriber is never
 * pushed its removal.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class EurekaClusterFailoverTest {
  static final Duration WAIT = Duration.ofSeconds(60);
  final HttpClient http = HttpClient.newHttpClient();

  record Member(String id, int tcpPort, int httpPort, Process process) {}

  @Test
  void theClientFailsOverWhenItsMemberIsKilledAndItsInstanceStaysInEveryView(@TempDir Path dir) throws Exception {
    List<Integer> ports = MemberPorts.free(9);
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      entries.add("n" + (i + 1) + "=127.0.0.1:" + ports.get(3 * i) + "/" + ports.get(3 * i + 1));
    }
    Map<String, Member> members = new LinkedHashMap<>();
    ConfigurableApplicationContext app = null;
    List<Disposable> watches = new ArrayList<>();
    List<RegistryClient> watchers = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        String id = "n" + (i + 1);
        members.put(id, new Member(id, ports.get(3 * i), ports.get(3 * i + 2), spawn(dir, id, String.join(",", entries),
            ports.get(3 * i + 2))));
      }
      for (Member member : members.values()) {
        await().atMost(WAIT).ignoreExceptions().until(() -> status(member, "/ready") == 200);
      }
      String defaultZone = members.values().stream().map(m -> "http://127.0.0.1:" + m.httpPort() + "/eureka/")
          .collect(Collectors.joining(","));
      app = EurekaApp.start(defaultZone, "payments", "payments-1");
      for (Member member : members.values()) {
        await().atMost(WAIT).until(() -> status(member, "/eureka/apps/PAYMENTS/payments-1") == 200);
      }
      Member holder = members.values().stream().filter(this::holdsPayments).findFirst().orElseThrow();

      // Subscribers on the two members that stay.
      Map<String, List<ServiceEvent>> seen = new LinkedHashMap<>();
      for (Member member : members.values()) {
        if (member != holder) {
          RegistryClient watcher = RegistryClient.builder().servers("tcp://127.0.0.1:" + member.tcpPort())
              .clientName("watcher-" + member.id()).build();
          watchers.add(watcher);
          List<ServiceEvent> events = new CopyOnWriteArrayList<>();
          seen.put(member.id(), events);
          watches.add(watcher.events(ServiceName.of("payments"), null, false).subscribe(events::add));
          await().atMost(WAIT).until(() -> SpringCloudEurekaClientTest.upserted(events, "payments-1") != null);
        }
      }

      holder.process().destroyForcibly().waitFor();
      // The client renews elsewhere, is told 404, registers there: another member now holds it.
      await().atMost(WAIT).until(() -> members.values().stream().filter(m -> m != holder)
          .anyMatch(this::holdsPayments));
      Thread.sleep(3_000); // renewals continue there; nothing may remove it meanwhile
      for (Member member : members.values()) {
        if (member != holder) {
          assertThat(status(member, "/eureka/apps/PAYMENTS/payments-1")).as(member.id()).isEqualTo(200);
          assertThat(seen.get(member.id())).as("events on " + member.id())
              .noneMatch(event -> ServiceEvent.REMOVE.equals(event.type()));
        }
      }
    } finally {
      watches.forEach(Disposable::dispose);
      watchers.forEach(RegistryClient::closeAndWait);
      if (app != null) {
        app.close();
      }
      for (Member member : members.values()) {
        member.process().destroyForcibly().waitFor();
      }
    }
  }

  /** Whether the member's own connections (its Eureka door) hold the instance rather than a copy of a peer's. */
  private boolean holdsPayments(Member member) {
    try {
      HttpResponse<String> instances = http.send(HttpRequest.newBuilder(uri(member, "/api/v1/admin.service.instances"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"service\":\"payments\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      return instances.statusCode() == 200 && instances.body().contains("\"owner\":\"eureka\"");
    } catch (Exception e) {
      return false;
    }
  }

  private int status(Member member, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(uri(member, path)).header("Accept", "application/json").GET().build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static URI uri(Member member, String path) {
    return URI.create("http://127.0.0.1:" + member.httpPort() + path);
  }

  private static Process spawn(Path dir, String id, String members, int httpPort) throws Exception {
    Path log = dir.resolve(id + ".log");
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "--host", "127.0.0.1", "--node-id", id, "--members", members, "--ws-port", "0",
        "--http-port", Integer.toString(httpPort), "--nacos-port", "-1", "--data-dir", dir.resolve(id).toString(),
        "--replication-grace-ms", "20000",
        // No throwaway Raft group warming up leader code in each member: it would only cost CPU here.
        "--raft-leader-warm-up", "false");
    Files.createDirectories(dir.resolve(id));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }
}
