package io.reactiveregistry.interop.nacos;

import static org.awaitility.Awaitility.await;

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
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Server processes forming one cluster on loopback, each on its own loopback address (member i on
 * 127.0.0.i: a Nacos client tells servers apart by their IP, as in a fleet where each member is a
 * machine of its own) with its Nacos door on a port P whose P + 1000 is its gRPC port (as Nacos's
 * clients expect), started and awaited until ready.
 */
final class NacosCluster implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern OWNER = Pattern.compile("\"owner\":\"([^\"]*)\"");

  /** A member: its id and address, its ports, its process now (replaced when it is started again). */
  static final class Member {
    final String id;
    final String host;
    final int tcpPort;
    final int httpPort;
    final int nacosPort;
    private volatile Process process;

    Member(String id, String host, int tcpPort, int httpPort, int nacosPort) {
      this.id = id;
      this.host = host;
      this.tcpPort = tcpPort;
      this.httpPort = httpPort;
      this.nacosPort = nacosPort;
    }

    String id() {
      return id;
    }

    Process process() {
      return process;
    }

    /** Its Nacos address, as a Nacos client's server list names it. */
    String nacosAddress() {
      return host + ":" + nacosPort;
    }

    String rsocket() {
      return "tcp://" + host + ":" + tcpPort;
    }
  }

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Member> members = new ArrayList<>();
  private final Path dir;
  private final String memberList;
  private final String[] extraArgs;

  /** {@code size} members, each on its own loopback address, logs and data in {@code dir}, with {@code extraArgs}. */
  NacosCluster(Path dir, int size, String... extraArgs) throws Exception {
    this(dir, size, true, extraArgs);
  }

  /** The same, on addresses of their own ({@code ownHosts}) or all on 127.0.0.1, as on one machine. */
  NacosCluster(Path dir, int size, boolean ownHosts, String... extraArgs) throws Exception {
    this.dir = dir;
    this.extraArgs = extraArgs;
    List<Integer> ports = MemberPorts.free(3 * size);
    List<Integer> nacosPorts = NacosPorts.freePairs(size);
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String id = "n" + (i + 1);
      String host = ownHosts ? "127.0.0." + (i + 1) : "127.0.0.1";
      entries.add(id + "=" + host + ":" + ports.get(3 * i) + "/" + ports.get(3 * i + 1));
      members.add(new Member(id, host, ports.get(3 * i), ports.get(3 * i + 2), nacosPorts.get(i)));
    }
    this.memberList = String.join(",", entries);
    try {
      for (Member member : members) {
        start(member);
      }
      for (Member member : members) {
        awaitReady(member);
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** Starts the member's process (again, on its data directory, after it was killed). */
  void start(Member member) throws Exception {
    Path log = dir.resolve(member.id + ".log");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx384m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "--host", member.host, "--node-id", member.id, "--members", memberList, "--ws-port", "0",
        "--http-port", Integer.toString(member.httpPort), "--nacos-port", Integer.toString(member.nacosPort),
        "--data-dir", dir.resolve(member.id).toString(), "--raft-leader-warm-up", "false"));
    command.addAll(List.of(extraArgs));
    Files.createDirectories(dir.resolve(member.id));
    member.process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
  }

  void awaitReady(Member member) {
    await().atMost(WAIT).ignoreExceptions().until(() -> status(member, "/ready") == 200);
  }

  List<Member> members() {
    return members;
  }

  /** Every member's Nacos address, as a Nacos client's server list. */
  String serverList() {
    return serverList(members);
  }

  static String serverList(List<Member> some) {
    return some.stream().map(Member::nacosAddress).collect(Collectors.joining(","));
  }

  /** The member's instances of {@code service}, as {@code admin.service.instances} lists them; "" when it can't. */
  String instances(Member member, String service) {
    try {
      HttpResponse<String> instances = http.send(HttpRequest.newBuilder(uri(member, "/api/v1/admin.service.instances"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"service\":\"" + service + "\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      return instances.statusCode() == 200 ? instances.body() : "";
    } catch (Exception e) {
      return "";
    }
  }

  /** How many of the member's instances of {@code service} its own connections hold (not copies of a peer's). */
  int ownedBy(Member member, String service) {
    Matcher owner = OWNER.matcher(instances(member, service));
    int own = 0;
    while (owner.find()) {
      if (!owner.group(1).startsWith("node ")) {
        own++;
      }
    }
    return own;
  }

  /** A sample of the member's {@code /metrics}, as Prometheus reads it; 0 when it has none yet. */
  double metric(Member member, String series) throws Exception {
    String scrape = http.send(HttpRequest.newBuilder(uri(member, "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher sample = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    return sample.find() ? Double.parseDouble(sample.group(1)) : 0;
  }

  int status(Member member, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(uri(member, path)).GET().build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static URI uri(Member member, String path) {
    return URI.create("http://" + member.host + ":" + member.httpPort + path);
  }

  @Override
  public void close() throws InterruptedException {
    for (Member member : members) {
      if (member.process != null) {
        member.process.destroyForcibly().waitFor();
      }
    }
  }
}
