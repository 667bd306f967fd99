package io.reactiveregistry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.storage.BackupFile;
import io.reactiveregistry.server.storage.StorageConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's tour, run line by line as the README writes it: every {@code $CLI} line of its
 * command blocks is taken from README.md itself, and where the README shows what a line prints
 * ({@code # {...}} under it, or the {@code json} block the watcher prints), the output must be
 * exactly that. The test adds only {@code --target}, since its server listens on a free port, and
 * {@code --take} to end streams a person would end with Ctrl-C. The lines that hold a connection
 * or watch a stream run as separate processes, as in the README's terminals, and Ctrl-C is the
 * end of that process.
 */
@Tag("process") // starts processes of its own: skipped by -Pquick, run in CI
class ReadmeTourTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String README = readme();

  @TempDir
  Path data;
  private RegistryServer server;
  private final List<Process> processes = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    processes.forEach(Process::destroyForcibly);
    if (server != null) {
      server.disposeNow(Duration.ofSeconds(10));
    }
  }

  private static String readme() {
    try {
      return Files.readString(Path.of("../README.md"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void startServer() {
    server = RegistryServer.start(ServerConfig.ephemeralLoopback().withStorage(StorageConfig.onDisk(data)))
        .block(Duration.ofSeconds(30));
  }

  @Test
  void theFiveMinuteTourPrintsWhatTheReadmeSays() throws Exception {
    startServer();
    List<Line> tour = Line.parse(section("## A five-minute tour"));
    Line watch = tour.get(0);
    Line hold = tour.get(1);
    assertThat(watch.args()).contains("service.subscribe", "--stream");
    assertThat(hold.args()).contains("instance.register", "--hold");
    String removeLine = jsonBlockAfter(section("## A five-minute tour"), "the watcher prints");

    // Second terminal: the watcher. Third terminal: a registration held open.
    List<String> watcherOut = new CopyOnWriteArrayList<>();
    spawn(watch, watcherOut);
    await().atMost(WAIT).until(() -> watcherOut.size() == 1);
    assertThat(watcherOut.get(0)).startsWith("{\"type\":\"SNAPSHOT\"");
    List<String> holderOut = new CopyOnWriteArrayList<>();
    Process holder = spawn(hold, holderOut);
    await().atMost(WAIT).until(() -> !holderOut.isEmpty());
    assertThat(holderOut.get(0)).isEqualTo(hold.expected());
    await().atMost(WAIT).until(() -> watcherOut.size() == 2);
    assertThat(watcherOut.get(1)).startsWith("{\"type\":\"SNAPSHOT\"").contains("\"ip\":\"127.0.0.5\"");

    holder.destroy(); // Ctrl-C in the third terminal
    await().atMost(WAIT).until(() -> watcherOut.size() == 3);
    assertThat(watcherOut.get(2)).isEqualTo(removeLine);

    // The persistent instance, with a restart where the README says to stop and start the server.
    List<Line> persistent = tour.subList(2, tour.size());
    Line lastQuery = null;
    for (Line line : persistent) {
      if (line.before().contains("Stop the server")) {
        server.disposeNow(Duration.ofSeconds(10));
        startServer();
        assertThat(lastQuery).isNotNull();
        assertThat(run(lastQuery).out()).as("after the restart: " + lastQuery.text()).contains("\"ip\":\"127.0.0.9\"");
      }
      Result result = run(line);
      boolean refusal = line.expected() != null && line.expected().startsWith("{\"code\"");
      assertThat(result.exitCode()).as(line.text() + "\n" + result.err()).isEqualTo(refusal ? 1 : 0);
      if (line.expected() != null) {
        assertThat(refusal ? result.err() : result.out()).as(line.text()).isEqualTo(line.expected());
      }
      if (line.text().contains("service.query") && line.text().contains("postgres")) {
        assertThat(result.out()).contains("\"ip\":\"127.0.0.9\"");
        lastQuery = line;
      }
    }
    assertThat(persistent).anySatisfy(line -> assertThat(line.before()).contains("Stop the server"));
    assertThat(persistent).anySatisfy(line -> assertThat(line.expected()).startsWith("{\"code\""));
  }

  @Test
  void theRsocketCliAndOperatorLinesRun() throws Exception {
    startServer();
    // The operator lines act on an instance 127.0.0.5:8080 of orders: one that stays.
    run(Line.of("--route", "instance.register", "--data",
        "{\"service\":\"orders\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"));
    List<Line> lines = new ArrayList<>(Line.parse(section("## Talking to the registry with an RSocket CLI")));
    lines.addAll(Line.parse(section("## Operating the registry")));
    lines.removeIf(line -> !line.args().contains("--route"));
    assertThat(lines).hasSizeGreaterThanOrEqualTo(8);
    for (Line line : lines) {
      Result result = line.text().contains("admin.trace") ? runWhileOrdersChanges(line) : run(line);
      assertThat(result.exitCode()).as(line.text() + "\n" + result.err()).isZero();
      if (!line.args().contains("--fnf")) {
        assertThat(result.out()).as(line.text()).startsWith("{");
      }
    }
  }

  /**
   * "What happened: the audit history": each line as written, after orders' instance was
   * registered and overridden; the hour's line prints both changes with the override's fields,
   * the following one goes on to print a change made after it started.
   */
  @Test
  void theAuditHistoryLinesRun() throws Exception {
    startServer();
    run(Line.of("--route", "instance.register", "--data",
        "{\"service\":\"orders\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"));
    run(Line.of("--route", "admin.instance.patch", "--data",
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080},\"enabled\":false}"));
    String audit = section("## Operating the registry");
    List<Line> lines = Line.parse(audit.substring(audit.indexOf("\n### What happened: the audit history\n")));
    assertThat(lines).extracting(line -> line.args().get(0)).containsOnly("trace").hasSizeGreaterThanOrEqualTo(3);
    for (Line line : lines) {
      Result result = line.args().contains("--follow") ? runWhileOrdersChanges(line) : run(line);
      assertThat(result.exitCode()).as(line.text() + "\n" + result.err()).isZero();
      if (line.args().contains("1h")) {
        assertThat(result.out().lines().toList()).as(line.text()).hasSize(2);
        assertThat(result.out()).contains(" REGISTER public/DEFAULT_GROUP/orders 127.0.0.5#8080#DEFAULT")
            .contains(" OVERRIDE public/DEFAULT_GROUP/orders").contains("enabled: true -> false");
      }
      if (line.args().contains("--follow")) { // the two kept, then one made while it followed
        assertThat(result.out().lines().toList()).as(line.text()).hasSize(3);
        assertThat(result.out().lines().toList().get(2)).contains(" OVERRIDE ").contains("weight: 1.0 -> ");
      }
    }
  }

  /**
   * "Tasks": each subcommand line as the README writes it. The held registration runs as its own
   * process, ended with Ctrl-C once it has printed its answer; watch and trace end after their
   * first event.
   */
  @Test
  void theTaskLinesRun() throws Exception {
    startServer();
    run(Line.of("--route", "instance.register", "--data",
        "{\"service\":\"orders\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}}"));
    List<Line> tasks = Line.parse(section("## Talking to the registry with an RSocket CLI")).stream()
        .filter(line -> !line.args().contains("--route")).toList();
    assertThat(tasks).extracting(line -> line.args().get(0))
        .contains("services", "instances", "register", "watch", "trace", "deregister", "info", "members");
    for (Line line : tasks) {
      if (line.args().contains("--hold")) {
        List<String> printed = new CopyOnWriteArrayList<>();
        Process held = spawn(line, printed);
        await().atMost(WAIT).until(() -> !printed.isEmpty());
        assertThat(printed.get(0)).as(line.text()).startsWith("{\"instanceId\":");
        held.destroy(); // Ctrl-C
        continue;
      }
      Result result = line.args().get(0).equals("trace") ? runWhileOrdersChanges(line) : run(line);
      assertThat(result.exitCode()).as(line.text() + "\n" + result.err()).isZero();
      assertThat(result.out()).as(line.text()).isNotBlank();
    }
    // The backup line wrote a file a server restores from: orders' persistent instance is in it.
    Path backup = Path.of("registry.backup");
    try {
      assertThat(BackupFile.read(backup).values()).anySatisfy(value ->
          assertThat(value.subject().service().service()).isEqualTo("orders"));
    } finally {
      Files.deleteIfExists(backup);
    }
  }

  /**
   * "Securing the registry": the README's own shell lines make the tokens, the token file, the JWT
   * key file and a signed token (run with bash, as a reader would), the server starts with both
   * files, and each {@code $CLI} line, with the token the README names in its place, prints what the
   * README shows.
   */
  @Test
  void theSecuritySectionRunsAsWritten() throws Exception {
    String whole = section("## Securing the registry");
    String security = whole.substring(0, whole.indexOf("\n### TLS\n"));
    String makeTokens = shellUntilServerStarts(security, "APP_TOKEN=");
    String makeKeys = shellUntilServerStarts(security, "b64url()");
    int signing = security.indexOf("```sh\nHEADER=");
    String signToken = security.substring(signing + "```sh\n".length(), security.indexOf("\n```", signing + 6));
    Process bash = new ProcessBuilder("bash", "-euc", makeTokens + "\n" + makeKeys + "\n" + signToken
        + "\nprintf '%s\\n%s\\n%s\\n' \"$APP_TOKEN\" \"$OPS_TOKEN\" \"$JWT\"")
        .directory(data.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    List<String> made = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    assertThat(bash.waitFor()).as("the README's lines that make the tokens and key files").isZero();
    assertThat(made).hasSize(3);
    assertThat(made.subList(0, 2)).allSatisfy(token -> assertThat(token).matches("[0-9a-f]{64}"));
    assertThat(made.get(2)).matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");
    server = RegistryServer.start(ServerConfig.ephemeralLoopback().withSecurity(new SecurityConfig(false,
        data.resolve("tokens.json"), data.resolve("jwt-keys.json")))).block(Duration.ofSeconds(30));

    List<Line> lines = Line.parse(security);
    assertThat(lines).hasSizeGreaterThanOrEqualTo(6);
    for (Line written : lines) {
      List<String> args = written.args().stream().map(word -> word.replace("\"$APP_TOKEN\"", made.get(0))
          .replace("\"$OPS_TOKEN\"", made.get(1)).replace("\"$JWT\"", made.get(2))).toList();
      Line line = new Line(written.text(), args, written.expected(), written.before());
      Result result = run(line);
      boolean refusal = line.expected() != null && line.expected().startsWith("{\"code\"");
      assertThat(result.exitCode()).as(line.text() + "\n" + result.err()).isEqualTo(refusal ? 1 : 0);
      assertThat(refusal ? result.err() : result.out()).as(line.text()).isEqualTo(line.expected());
    }
  }

  /**
   * "TLS": the README's openssl lines make a CA and the server's and a client's certificates, the
   * server starts with them as the README's command line says (client certificates required), and
   * the {@code $CLI} line prints what the README shows over {@code tls://}.
   */
  @Test
  void theTlsSectionRunsAsWritten() throws Exception {
    String whole = section("## Securing the registry");
    String tls = whole.substring(whole.indexOf("\n### TLS\n"));
    Process bash = new ProcessBuilder("bash", "-euc", shellUntilServerStarts(tls, "# A CA"))
        .directory(data.toFile()).redirectErrorStream(true).start();
    String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(bash.waitFor()).as("the README's openssl lines\n" + output).isZero();
    String start = tls.substring(tls.indexOf("\njava ") + 1, tls.indexOf("\n", tls.indexOf("\njava ") + 1));
    assertThat(start).contains("--tls-cert-file server.pem", "--tls-key-file server.key", "--tls-client-ca-file ca.pem");
    server = RegistryServer.start(ServerConfig.ephemeralLoopback().withSecurity(SecurityConfig.DEFAULTS.withTls(
        new TlsFiles(data.resolve("server.pem"), data.resolve("server.key"), data.resolve("ca.pem")))))
        .block(Duration.ofSeconds(30));

    List<Line> lines = Line.parse(tls);
    assertThat(lines).isNotEmpty();
    for (Line written : lines) {
      List<String> args = written.args().stream()
          .map(word -> word.endsWith(".pem") || word.endsWith(".key") ? data.resolve(word).toString() : word).toList();
      Line line = new Line(written.text(), args, written.expected(), written.before());
      Result result = run(line);
      assertThat(result.exitCode()).as(line.text() + "\n" + result.err()).isZero();
      assertThat(result.out()).as(line.text()).isEqualTo(line.expected());
    }
  }

  /** The lines of the shell block that starts with {@code first}, up to the line that starts the server. */
  private static String shellUntilServerStarts(String text, String first) {
    int open = text.indexOf("```sh\n" + first);
    assertThat(open).as("a shell block starting with " + first).isNotNegative();
    return text.substring(open + "```sh\n".length(), text.indexOf("\njava ", open));
  }

  /** The audit trail prints changes as they happen: make some until the line has its event. */
  private Result runWhileOrdersChanges(Line line) throws Exception {
    CompletableFuture<Result> trace = CompletableFuture.supplyAsync(() -> run(line));
    for (int weight = 1; !trace.isDone() && weight < 100; weight++) {
      Thread.sleep(100);
      run(Line.of("--route", "admin.instance.patch", "--data", "{\"service\":\"orders\",\"instance\":"
          + "{\"ip\":\"127.0.0.5\",\"port\":8080},\"weight\":" + weight + "}"));
    }
    return trace.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
  }

  /** What one in-process run printed. */
  private record Result(int exitCode, String out, String err) {}

  private Result run(Line line) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new CommandLine(new RegistryCli(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8))).execute(line.argsFor(server));
    return new Result(code, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
  }

  /** Runs a line in its own JVM, as a terminal would, collecting what it prints. */
  private Process spawn(Line line, List<String> printed) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), RegistryCli.class.getName()));
    command.addAll(List.of(line.argsFor(server)));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    processes.add(process);
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String next = in.readLine(); next != null; next = in.readLine()) {
          printed.add(next);
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "readme-tour-reader");
    reader.setDaemon(true);
    reader.start();
    return process;
  }

  /** The text of a README section, from its heading to the next heading of the same level. */
  private static String section(String heading) {
    int start = README.indexOf("\n" + heading + "\n");
    assertThat(start).as("README has '%s'", heading).isNotNegative();
    int end = README.indexOf("\n## ", start + heading.length() + 2);
    return README.substring(start, end < 0 ? README.length() : end);
  }

  /** The single line of the first ```json block after {@code marker}. */
  private static String jsonBlockAfter(String text, String marker) {
    int at = text.indexOf(marker);
    int open = text.indexOf("```json\n", at);
    int close = text.indexOf("\n```", open + 8);
    return text.substring(open + "```json\n".length(), close).strip();
  }

  /**
   * One {@code $CLI} command of a README block: its words as a shell would split them, what the
   * README shows it prints (the {@code # {...}} line under it), and the comment lines above it.
   */
  record Line(String text, List<String> args, String expected, String before) {
    static Line of(String... args) {
      return new Line(String.join(" ", args), List.of(args), null, "");
    }

    /**
     * Arguments for the test's server: its port in place of the README's, on the transport the
     * README names; a stream the README leaves open ends after its first event.
     */
    String[] argsFor(RegistryServer server) {
      List<String> result = new ArrayList<>(args);
      int target = result.indexOf("--target");
      if (target >= 0) {
        result.remove(target + 1);
        result.remove(target);
      }
      URI named = URI.create(target >= 0 ? args.get(target + 1) : "tcp://127.0.0.1:7070");
      String address = switch (named.getScheme()) {
        case "ws", "wss" -> named.getScheme() + "://127.0.0.1:" + server.webSocketPort() + named.getPath();
        default -> named.getScheme() + "://127.0.0.1:" + server.tcpPort();
      };
      result.addAll(0, List.of("--target", address));
      boolean watchedInATerminal = text.contains("--hold") || before.contains("Watch the service");
      boolean streams = result.contains("--stream") || args.get(0).equals("watch")
          || args.get(0).equals("watch-catalog") || args.get(0).equals("trace");
      if (streams && !result.contains("--take") && !watchedInATerminal) {
        result.addAll(List.of("--take", "1"));
      }
      return result.toArray(String[]::new);
    }

    static List<Line> parse(String section) {
      List<Line> lines = new ArrayList<>();
      boolean inShell = false;
      StringBuilder comments = new StringBuilder();
      String[] raw = section.split("\n");
      for (int i = 0; i < raw.length; i++) {
        String line = raw[i];
        if (line.startsWith("```")) {
          inShell = line.equals("```sh");
          comments.setLength(0);
          continue;
        }
        if (!inShell) {
          continue;
        }
        if (line.startsWith("#")) {
          comments.append(line).append('\n');
          continue;
        }
        if (!line.startsWith("$CLI ")) {
          continue;
        }
        StringBuilder command = new StringBuilder(line);
        while (command.toString().endsWith("\\") && i + 1 < raw.length) {
          command.setLength(command.length() - 1);
          command.append(' ').append(raw[++i].strip());
        }
        String expected = i + 1 < raw.length && raw[i + 1].startsWith("# {") ? raw[i + 1].substring(2) : null;
        List<String> words = words(command.substring("$CLI ".length()));
        lines.add(new Line(command.toString(), words, expected, comments.toString()));
        comments.setLength(0);
      }
      return lines;
    }

    /** Splits like a POSIX shell for what the README uses: single quotes, and a comment after #. */
    private static List<String> words(String command) {
      List<String> words = new ArrayList<>();
      StringBuilder word = null;
      boolean quoted = false;
      for (int i = 0; i < command.length(); i++) {
        char c = command.charAt(i);
        if (quoted) {
          if (c == '\'') {
            quoted = false;
          } else {
            word.append(c);
          }
        } else if (c == '\'') {
          quoted = true;
          word = word == null ? new StringBuilder() : word;
        } else if (Character.isWhitespace(c)) {
          if (word != null) {
            words.add(word.toString());
            word = null;
          }
        } else if (c == '#' && word == null) {
          break;
        } else {
          word = word == null ? new StringBuilder() : word;
          word.append(c);
        }
      }
      if (word != null) {
        words.add(word.toString());
      }
      return words;
    }
  }
}
