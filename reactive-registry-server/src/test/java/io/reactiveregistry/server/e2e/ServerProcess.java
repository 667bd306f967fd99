package io.reactiveregistry.server.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server as a separate JVM, started from the test class path with a data directory, so that
 * tests can stop it the way the world does: SIGTERM, or SIGKILL with no chance to clean up.
 */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int port;
  private final int webSocketPort;
  private final int httpPort;

  private ServerProcess(Process process, Path log, int port, int webSocketPort, int httpPort) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.webSocketPort = webSocketPort;
    this.httpPort = httpPort;
  }

  /** "listening: rsocket+tcp://127.0.0.1:7070, rsocket+ws://127.0.0.1:7071/rsocket, http://127.0.0.1:7080". */
  private static final Pattern LISTENING = Pattern.compile(
      "listening: rsocket\\+tcp://\\S+:(\\d+), rsocket\\+ws://\\S+:(\\d+)/rsocket, http://[^\\s:]+:(\\d+)");

  /**
   * Starts a server and waits until it accepts connections. Every port is 0, picked by the
   * server itself when it binds, and read back from its log: a port chosen here and handed over
   * could be taken by another process in between.
   */
  static ServerProcess start(Path dataDir, Path log, String... extraArgs) throws IOException {
    return start("512m", dataDir, log, extraArgs);
  }

  /** With a heap of {@code maxHeap} ({@code -Xmx}). */
  static ServerProcess start(String maxHeap, Path dataDir, Path log, String... extraArgs) throws IOException {
    return launch(List.of(), "127.0.0.1", maxHeap, dataDir, log, extraArgs);
  }

  /**
   * In a network namespace the test made ({@link NetworkNamespace}), listening on all of its
   * addresses: clients in the test's own namespace reach it from a non-loopback address.
   */
  static ServerProcess startIn(NetworkNamespace namespace, Path dataDir, Path log, String... extraArgs)
      throws IOException {
    return launch(namespace.exec(), "0.0.0.0", "512m", dataDir, log, extraArgs);
  }

  private static ServerProcess launch(List<String> prefix, String host, String maxHeap, Path dataDir, Path log,
      String... extraArgs) throws IOException {
    List<String> args = new ArrayList<>(List.of("--port", "0", "--raft-port", "0"));
    args.addAll(List.of(extraArgs));
    return awaitListening(spawn(prefix, host, maxHeap, dataDir, log, args), log);
  }

  /**
   * Starts a cluster member (its ports are those of its entry in {@code members}) without waiting:
   * a member opens its ports only once a majority of members has started. Then {@link #awaitListening}.
   */
  public static Process spawnMember(Path dataDir, Path log, String nodeId, String members, String... extraArgs)
      throws IOException {
    List<String> args = new ArrayList<>(List.of("--node-id", nodeId, "--members", members));
    args.addAll(List.of(extraArgs));
    if (!args.contains("--raft-leader-warm-up")) {
      // Off unless a test asks: 1-3 s of CPU per member start on two cores, and these members run
      // C1 only, so a warm-up would not give them the leader code compiled the way it does a
      // member in production (LeaderPathWarmUpTest and ClusterScriptTest run it).
      args.addAll(List.of("--raft-leader-warm-up", "false"));
    }
    return spawn(List.of(), "127.0.0.1", "384m", dataDir, log, args);
  }

  private static Process spawn(List<String> prefix, String host, String maxHeap, Path dataDir, Path log,
      List<String> extraArgs) throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + maxHeap,
        "-XX:+ExitOnOutOfMemoryError", // as the README runs it
        // C1 only: these servers live for seconds, and on two cores C2's compiling at start took
        // the CPU the test's own clients and the other members need. Nothing tested depends on it.
        "-XX:TieredStopAtLevel=1",
        "-XX:+AllowRedefinitionToAddDeleteMethods"));
    command.addAll(ServerClassArchive.options()); // the class path, and the class archive where the module has one
    command.addAll(List.of(BlockHoundMain.class.getName(), "--host", host, "--ws-port", "0", "--http-port", "0",
        "--data-dir", dataDir.toString()));
    if (!extraArgs.contains("--nacos-port")) {
      command.addAll(List.of("--nacos-port", "-1")); // the Nacos door's fixed ports: only where a test asks
    }
    command.addAll(extraArgs);
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** Waits until a started server accepts connections (or has exited, which fails). */
  public static ServerProcess awaitListening(Process process, Path log) throws IOException {
    try {
      await().atMost(Duration.ofSeconds(60))
          .until(() -> !process.isAlive() || LISTENING.matcher(Files.readString(log)).find());
      if (!process.isAlive()) {
        throw new IllegalStateException("the server exited at start:\n" + Files.readString(log));
      }
      if (!Files.readString(log).contains(BlockHoundMain.ACTIVE)) {
        throw new IllegalStateException("blocking detection is not on in the server process:\n" + Files.readString(log));
      }
      Matcher listening = LISTENING.matcher(Files.readString(log));
      listening.find();
      return new ServerProcess(process, log, Integer.parseInt(listening.group(1)),
          Integer.parseInt(listening.group(2)), Integer.parseInt(listening.group(3)));
    } catch (RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  /** Sends a signal by name (STOP, CONT, ...) to the process. */
  void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + name + " failed");
    }
  }

  int port() {
    return port;
  }

  int webSocketPort() {
    return webSocketPort;
  }

  int httpPort() {
    return httpPort;
  }

  public String log() throws IOException {
    return Files.readString(log);
  }

  /** The exit status, once the process has ended within {@code limit}; empty if it is still running. */
  public java.util.OptionalInt exitStatus(Duration limit) throws InterruptedException {
    return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS) ? java.util.OptionalInt.of(process.exitValue())
        : java.util.OptionalInt.empty();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** SIGTERM, and wait for the process to end. */
  void terminate() throws InterruptedException {
    terminate(Duration.ofSeconds(30));
  }

  /** SIGTERM; whether the process ended within {@code limit}. */
  public boolean terminate(Duration limit) throws InterruptedException {
    process.destroy();
    return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Fails if the server blocked a thread that must never block, at any time so far. */
  void assertNothingBlocked() throws IOException {
    String text = Files.readString(log);
    if (text.contains(BlockHoundMain.BLOCKED)) {
      throw new AssertionError("the server process blocked a non-blocking thread:\n" + text);
    }
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Kills the process, then fails if it ever blocked a non-blocking thread. */
  @Override
  public void close() throws InterruptedException, IOException {
    kill();
    assertNothingBlocked();
  }
}
