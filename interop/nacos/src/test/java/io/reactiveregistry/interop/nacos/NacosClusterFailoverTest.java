package io.reactiveregistry.interop.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.Main;
import io.reactiveregistry.server.e2e.MemberPorts;
import io.reactiveregistry.server.e2e.NacosPorts;
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
import reactor.core.Disposable;

/**
 * A three-member cluster, every member in the Nacos clients' server list: the member holding a
 * client's connection is killed with SIGKILL; the client connects to another member and redoes its
 * registration there, and its instance stays in every surviving member's views: a subscriber there
 * is never pushed its removal, and another Nacos client keeps seeing it.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class NacosClusterFailoverTest {
  static final Duration WAIT = Duration.ofSeconds(60);
  final HttpClient http = HttpClient.newHttpClient();

  record Member(String id, int tcpPort, int httpPort, int nacosPort, Process process) {}

  @Test
  void aClientWhoseMemberIsKilledMovesAndItsInstanceStaysInEveryView(@TempDir Path dir) throws Exception {
    List<Integer> ports = MemberPorts.free(9);
    List<Integer> nacosPorts = NacosPorts.freePairs(3);
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      entries.add("n" + (i + 1) + "=127.0.0.1:" + ports.get(3 * i) + "/" + ports.get(3 * i + 1));
    }
    Map<String, Member> members = new LinkedHashMap<>();
    List<Disposable> watches = new ArrayList<>();
    List<RegistryClient> watchers = new ArrayList<>();
    NamingService app = null;
    NamingService reader = null;
    try {
      for (int i = 0; i < 3; i++) {
        String id = "n" + (i + 1);
        members.put(id, new Member(id, ports.get(3 * i), ports.get(3 * i + 2), nacosPorts.get(i),
            spawn(dir, id, String.join(",", entries), ports.get(3 * i + 2), nacosPorts.get(i))));
      }
      for (Member member : members.values()) {
        await().atMost(WAIT).ignoreExceptions().until(() -> status(member, "/ready") == 200);
      }
      String serverList = members.values().stream().map(m -> "127.0.0.1:" + m.nacosPort())
          .collect(Collectors.joining(","));
      app = NamingFactory.createNamingService(NacosApp.properties(serverList, null, null));
      app.registerInstance("payments", "127.0.0.1", 9400);
      reader = NamingFactory.createNamingService(NacosApp.properties(serverList, null, null));
      NamingService readerClient = reader;
      for (Member member : members.values()) {
        await().atMost(WAIT).until(() -> instances(member).contains("127.0.0.1#9400#DEFAULT"));
      }
      Member holder = members.values().stream().filter(this::holdsPayments).findFirst().orElseThrow();

      Map<String, List<ServiceEvent>> seen = new LinkedHashMap<>();
      for (Member member : members.values()) {
        if (member != holder) {
          RegistryClient watcher = RegistryClient.builder().servers("tcp://127.0.0.1:" + member.tcpPort())
              .clientName("watcher-" + member.id()).build();
          watchers.add(watcher);
          List<ServiceEvent> events = new CopyOnWriteArrayList<>();
          seen.put(member.id(), events);
          watches.add(watcher.events(ServiceName.of("payments"), null, false).subscribe(events::add));
          await().atMost(WAIT).until(() -> !events.isEmpty());
        }
      }

      holder.process().destroyForcibly().waitFor();
      // The client finds its connection gone, connects to another member and registers there again.
      await().atMost(WAIT).until(() -> members.values().stream().filter(m -> m != holder)
          .anyMatch(this::holdsPayments));
      for (Member member : members.values()) {
        if (member != holder) {
          assertThat(instances(member)).as(member.id()).contains("127.0.0.1#9400#DEFAULT");
          assertThat(seen.get(member.id())).as("events on " + member.id())
              .noneMatch(event -> ServiceEvent.REMOVE.equals(event.type()));
        }
      }
      assertThat(readerClient.getAllInstances("payments")).extracting(i -> i.getPort()).containsExactly(9400);
    } finally {
      watches.forEach(Disposable::dispose);
      watchers.forEach(RegistryClient::closeAndWait);
      if (app != null) {
        app.shutDown();
      }
      if (reader != null) {
        reader.shutDown();
      }
      for (Member member : members.values()) {
        member.process().destroyForcibly().waitFor();
      }
    }
  }

  /** Whether one of the member's own connections (a Nacos client's) holds the instance, not a copy of a peer's. */
  private boolean holdsPayments(Member member) {
    String listed = instances(member);
    return listed.contains("127.0.0.1#9400#DEFAULT") && !listed.contains("\"owner\":\"node ");
  }

  private String instances(Member member) {
    try {
      HttpResponse<String> instances = http.send(HttpRequest.newBuilder(uri(member, "/api/v1/admin.service.instances"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"service\":\"payments\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      return instances.statusCode() == 200 ? instances.body() : "";
    } catch (Exception e) {
      return "";
    }
  }

  private int status(Member member, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(uri(member, path)).GET().build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static URI uri(Member member, String path) {
    return URI.create("http://127.0.0.1:" + member.httpPort() + path);
  }

  private static Process spawn(Path dir, String id, String members, int httpPort, int nacosPort) throws Exception {
    Path log = dir.resolve(id + ".log");
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "--host", "127.0.0.1", "--node-id", id, "--members", members, "--ws-port", "0",
        "--http-port", Integer.toString(httpPort), "--nacos-port", Integer.toString(nacosPort),
        "--data-dir", dir.resolve(id).toString(), "--replication-grace-ms", "20000");
    Files.createDirectories(dir.resolve(id));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }
}
