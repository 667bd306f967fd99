package io.reactiveregistry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.NamespaceSummary;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Each task subcommand of registry-cli against a real server, over TCP and WebSocket, with its exit codes. */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class SubcommandsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(WAIT);
  private final List<Process> processes = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    processes.forEach(Process::destroyForcibly);
    server.disposeNow(Duration.ofSeconds(5));
  }

  private record Result(int exitCode, String out, String err) {}

  private String tcp() {
    return "tcp://127.0.0.1:" + server.tcpPort();
  }

  private String ws() {
    return "ws://127.0.0.1:" + server.webSocketPort() + "/rsocket";
  }

  /** registry-cli in this JVM. */
  private static Result cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = RegistryCli.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * registry-cli in a JVM of its own, as in a terminal, with {@code REGISTRY_ADDR} set to the
   * server: its stdout lines into {@code printed}, its stderr lines into {@code errors}.
   */
  private Process spawn(List<String> printed, List<String> errors, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), RegistryCli.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("REGISTRY_ADDR", tcp());
    Process process = builder.start();
    processes.add(process);
    read(process.getInputStream(), printed);
    read(process.getErrorStream(), errors);
    return process;
  }

  private static void read(InputStream stream, List<String> lines) {
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String next = in.readLine(); next != null; next = in.readLine()) {
          lines.add(next);
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "cli-reader");
    reader.setDaemon(true);
    reader.start();
  }

  @Test
  void servicesInstancesAndDeregisterReadAndChangeWhatIsRegistered() {
    Result registered = cli("--target", tcp(), "register", "postgres", "127.0.0.9:5432", "--persistent",
        "-m", "role=primary", "--weight", "2");
    assertThat(registered.exitCode()).as(registered.err()).isZero();
    assertThat(registered.out()).contains("\"instanceId\":\"127.0.0.9#5432#DEFAULT\"");
    assertThat(cli("register", "--target", ws(), "-g", "billing", "ledger", "[::1]:9000", "--persistent",
        "--cluster", "eu").exitCode()).isZero();

    Result services = cli("--target", tcp(), "services");
    assertThat(services.out().lines().toList()).containsExactly(
        "GROUP          SERVICE   TYPE        INSTANCES  HEALTHY",
        // Healthy until the server's first check of the address fails: 1 or 0.
        "DEFAULT_GROUP  postgres  persistent  1          " + healthy(services.out(), "postgres"),
        "billing        ledger    persistent  1          " + healthy(services.out(), "ledger"));
    assertThat(cli("--target", tcp(), "services", "--group", "billing", "--json").out().lines()
        .map(line -> JsonCodec.json().decode(line, ServiceSummary.class).service()).toList())
        .containsExactly("ledger");
    Result namespaces = cli("--target", tcp(), "namespaces");
    assertThat(namespaces.out().lines().toList()).as(namespaces.err()).hasSize(2)
        .first().isEqualTo("NAMESPACE  SERVICES  INSTANCES  HEALTHY");
    // Healthy: the persistent instances until the server's first checks of their addresses fail.
    assertThat(namespaces.out().lines().toList().get(1)).matches("public     2         2          [012]");
    assertThat(JsonCodec.json().decode(cli("--target", ws(), "namespaces", "--json").out().strip(),
        NamespaceSummary.class)).satisfies(listed -> assertThat(listed.services()).isEqualTo(2));

    Result instances = cli("--target", ws(), "instances", "postgres");
    assertThat(instances.out().lines().toList()).hasSize(2).first()
        .isEqualTo("INSTANCE        CLUSTER  WEIGHT  HEALTHY  ENABLED  METADATA");
    assertThat(instances.out().lines().toList().get(1))
        .matches("127\\.0\\.0\\.9:5432  DEFAULT  2\\.0     (true |false)    true     role=primary");
    // A selector over metadata (-l as kubectl's): role=primary selects it, role!=primary leaves the header alone.
    assertThat(cli("--target", tcp(), "instances", "postgres", "-l", "role in (primary, replica)").out().lines())
        .hasSize(2);
    assertThat(cli("--target", tcp(), "instances", "postgres", "--selector", "role!=primary").out().lines())
        .hasSize(1);
    Result badSelector = cli("--target", tcp(), "instances", "postgres", "-l", "role in primary");
    assertThat(badSelector.exitCode()).isEqualTo(1);
    assertThat(badSelector.err()).contains("INVALID_PARAM")
        .contains("selector is not a valid selector: at position 9, expected '(' to open the values of 'role'");
    ServiceSnapshot ledger = JsonCodec.json().decode(
        cli("--target", tcp(), "instances", "-g", "billing", "ledger", "--json").out(), ServiceSnapshot.class);
    assertThat(ledger.instances()).singleElement().satisfies(instance -> {
      assertThat(instance.ip()).isEqualTo("::1");
      assertThat(instance.cluster()).isEqualTo("eu");
    });

    assertThat(cli("--target", tcp(), "deregister", "postgres", "127.0.0.9:5432").out())
        .startsWith("removed 127.0.0.9:5432 from postgres (#");
    assertThat(cli("--target", tcp(), "deregister", "postgres", "127.0.0.9:5432").out())
        .isEqualTo("127.0.0.9:5432 was not registered in postgres\n");
    assertThat(cli("--target", tcp(), "deregister", "-g", "billing", "ledger", "[::1]:9000", "--cluster", "eu").out())
        .startsWith("removed [::1]:9000 from ledger");
  }

  /** The HEALTHY column of a service's line, whichever it is now. */
  private static String healthy(String table, String service) {
    return table.lines().filter(line -> line.contains("  " + service + "  ")).findFirst().orElseThrow()
        .replaceAll(".* ", "");
  }

  @Test
  void watchPrintsALinePerEventWhileAHeldRegistrationComesAndGoes() throws Exception {
    List<String> watched = new CopyOnWriteArrayList<>();
    Process watcher = spawn(watched, new CopyOnWriteArrayList<>(), "--target", ws(), "watch", "orders", "--take", "3");
    await().atMost(WAIT).until(() -> watched.size() == 1);
    assertThat(watched.get(0)).matches("#\\d+ SNAPSHOT public/DEFAULT_GROUP/orders: 0 instances");

    List<String> held = new CopyOnWriteArrayList<>();
    List<String> holding = new CopyOnWriteArrayList<>();
    Process holder = spawn(held, holding, "register", "orders", "127.0.0.5:8080", "--hold", "-m", "zone=a");
    await().atMost(WAIT).until(() -> watched.size() == 2);
    assertThat(watched.get(1)).matches("#\\d+ (SNAPSHOT public/DEFAULT_GROUP/orders: 1 instance \\(|UPSERT )"
        + "127\\.0\\.0\\.5:8080 cluster=DEFAULT weight=1\\.0 healthy enabled zone=a\\)?");
    assertThat(held).singleElement().asString().startsWith("{\"instanceId\":\"127.0.0.5#8080#DEFAULT\"");
    // Said on stderr once it holds (after the answer on stdout: the two streams arrive apart).
    await().atMost(WAIT).until(() -> holding.contains("holding the connection open; Ctrl-C closes it"));

    holder.destroy(); // Ctrl-C
    assertThat(watcher.waitFor()).isZero();
    assertThat(watched).hasSize(3);
    assertThat(watched.get(2)).matches("#\\d+ REMOVE 127\\.0\\.0\\.5#8080#DEFAULT");
  }

  @Test
  void aHeldEphemeralInstanceIsHeartbeatedUntilCtrlC() throws Exception {
    // Heartbeats every 200 ms, unhealthy after 1 s without one, removed after 2 s.
    RegistryServer quick = RegistryServer.start(ServerConfig.ephemeralLoopback()
        .withHeartbeat(new HeartbeatTimings(200, 1_000, 2_000))).block(WAIT);
    String target = "tcp://127.0.0.1:" + quick.tcpPort();
    try {
      List<String> held = new CopyOnWriteArrayList<>();
      Process holder = spawn(held, new CopyOnWriteArrayList<>(), "--target", target, "register", "orders",
          "127.0.0.5:8080", "--hold");
      await().atMost(WAIT).until(() -> !held.isEmpty());
      // Twice the delete timeout on, present and healthy all along: only heartbeats keep it so.
      await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(8)).until(() -> {
        ServiceSnapshot view = JsonCodec.json().decode(cli("--target", target, "instances", "orders", "--json").out(),
            ServiceSnapshot.class);
        return view.instances().size() == 1 && Boolean.TRUE.equals(view.instances().get(0).healthy());
      });

      holder.destroy(); // Ctrl-C
      await().atMost(WAIT).until(() -> JsonCodec.json().decode(cli("--target", target, "instances", "orders",
          "--json").out(), ServiceSnapshot.class).instances().isEmpty());
    } finally {
      quick.disposeNow(Duration.ofSeconds(5));
    }
  }

  @Test
  void watchCatalogPrintsTheServicesThenEachServiceThatAppearsChangesOrGoes() throws Exception {
    assertThat(cli("--target", tcp(), "register", "postgres", "127.0.0.9:5432", "--persistent").exitCode()).isZero();
    CompletableFuture<Result> watching = CompletableFuture.supplyAsync(() ->
        cli("--target", tcp(), "watch-catalog", "--take", "3"));
    // The stream's snapshot comes first; then what is changed once it is open.
    await().atMost(WAIT).until(() -> {
      cli("--target", tcp(), "register", "ledger", "127.0.0.1:9000", "--persistent", "-g", "billing");
      cli("--target", tcp(), "deregister", "ledger", "127.0.0.1:9000", "-g", "billing");
      return watching.isDone();
    });
    List<String> lines = watching.get().out().lines().toList();
    assertThat(lines.get(0)).matches("#\\d+ SNAPSHOT public: [12] services? \\(.*DEFAULT_GROUP/postgres persistent "
        + "[01]/1 healthy.*\\)");
    assertThat(lines.subList(1, 3)).allMatch(line -> line.matches("#\\d+ (UPSERT billing/ledger persistent [01]/[01] "
        + "healthy|REMOVE billing/ledger)"));
  }

  @Test
  void traceFollowsTheAuditTrail() throws Exception {
    CompletableFuture<Result> tracing = CompletableFuture.supplyAsync(() ->
        cli("--target", tcp(), "trace", "--service", "x", "--take", "2"));
    // The trace stream starts with what happens from its subscription on: register until it has seen two.
    await().atMost(WAIT).until(() -> {
      cli("--target", tcp(), "register", "x", "127.0.0.1:1", "--persistent");
      cli("--target", tcp(), "deregister", "x", "127.0.0.1:1");
      return tracing.isDone();
    });
    List<String> lines = tracing.get().out().lines().toList();
    assertThat(lines).hasSize(2).allMatch(line -> line.matches(
        "\\d{4}-\\d\\d-\\d\\dT\\S+Z #\\d+ (REGISTER|DEREGISTER) public/DEFAULT_GROUP/x 127\\.0\\.0\\.1#1#DEFAULT "
            + "connection=registry-cli@127\\.0\\.0\\.1:\\d+ node=\\S+"));
  }

  @Test
  void infoAndMembersDescribeTheServer() throws Exception {
    // REGISTRY_ADDR names the target when --target does not.
    List<String> info = new CopyOnWriteArrayList<>();
    assertThat(spawn(info, new CopyOnWriteArrayList<>(), "info").waitFor()).isZero();
    assertThat(info).anyMatch(line -> line.matches("version +\\S+ \\(protocol 1\\)"))
        .anyMatch(line -> line.matches("self-preservation +off"))
        .anyMatch(line -> line.matches("storage +IN_MEMORY"));
    Result members = cli("--target", ws(), "members");
    assertThat(members.exitCode()).as(members.err()).isZero();
    assertThat(members.out()).endsWith("  single\n");
    // A single server has no members to change: replace reaches it and is refused, saying so.
    Result replaced = cli("--target", tcp(), "members", "replace", "n1", "n4=127.0.0.1:7370/7390");
    assertThat(replaced.exitCode()).isEqualTo(1);
    assertThat(replaced.err()).contains("NOT_FOUND", "not a cluster member");
    assertThat(cli("--target", tcp(), "info", "--json").out()).startsWith("{\"version\":");
  }

  @Test
  void connectionsListsWhoIsConnectedAndWhatEachOwns() {
    assertThat(cli("--target", tcp(), "register", "x", "127.0.0.1:2", "--persistent").exitCode()).isZero();
    Result listing = cli("--target", ws(), "connections");
    assertThat(listing.exitCode()).as(listing.err()).isZero();
    // The listing's own connection, over WebSocket, owning nothing and holding no stream.
    assertThat(listing.out().lines().toList().get(0)).startsWith("ID").contains("SUBSCRIPTIONS");
    assertThat(listing.out().lines().toList()).anyMatch(line -> line.matches(
        "\\d+ +registry-cli +127\\.0\\.0\\.1:\\d+ +websocket +- +\\S+Z +0 +0"));
    assertThat(cli("--target", tcp(), "connections", "--json").out()).startsWith("{\"connections\":[");
  }

  @Test
  void exitCodesSayWhatWentWrong() {
    Result ephemeral = cli("--target", tcp(), "register", "orders", "127.0.0.5:8080");
    assertThat(ephemeral.exitCode()).isEqualTo(RegistryCli.USAGE);
    assertThat(ephemeral.err()).contains("add --hold").contains("--persistent");

    Result refused = cli("--target", tcp(), "register", "orders", "127.0.0.5:99999", "--persistent");
    assertThat(refused.exitCode()).isEqualTo(RegistryCli.REFUSED);
    assertThat(refused.err()).contains("\"code\":\"INVALID_PARAM\"").contains("instance.port");

    assertThat(cli("--target", tcp(), "register", "orders", "127.0.0.5", "--persistent").exitCode())
        .isEqualTo(RegistryCli.USAGE);
    Result unreachable = cli("--target", "tcp://127.0.0.1:1", "services");
    assertThat(unreachable.exitCode()).isEqualTo(RegistryCli.UNREACHABLE);
    assertThat(unreachable.err()).startsWith("no connection to tcp://127.0.0.1:1: ");
    assertThat(cli("--target", tcp(), "nonsense").exitCode()).isEqualTo(RegistryCli.USAGE);
    assertThat(cli("--target", tcp()).exitCode()).isEqualTo(RegistryCli.USAGE);
    assertThat(cli("watch", "--help").out()).contains("Usage: registry-cli watch").contains("--healthy-only");
  }
}
