package io.reactiveregistry.server.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The server as a separate JVM, started from the test class path with a data directory, so that
 * tests can stop it the way the world does: SIGTERM, or SIGKILL with no chance to clean up.
 */
final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final int port;
  private final int httpPort;

  private ServerProcess(Process process, Path log, int port, int httpPort) {
    this.process = process;
    this.log = log;
    this.port = port;
    this.httpPort = httpPort;
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Starts a server on free loopback ports and waits until it accepts connections. */
  static ServerProcess start(Path dataDir, Path log, String... extraArgs) throws IOException {
    int port = freePort();
    int httpPort = freePort();
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), "io.reactiveregistry.server.Main",
        "--host", "127.0.0.1", "--port", Integer.toString(port), "--ws-port", Integer.toString(freePort()),
        "--http-port", Integer.toString(httpPort), "--raft-port", Integer.toString(freePort()),
        "--data-dir", dataDir.toString()));
    command.addAll(List.of(extraArgs));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    ServerProcess server = new ServerProcess(process, log, port, httpPort);
    try {
      await().atMost(Duration.ofSeconds(60))
          .until(() -> !process.isAlive() || Files.readString(server.log).contains("listening"));
      if (!process.isAlive()) {
        throw new IllegalStateException("the server exited at start:\n" + Files.readString(log));
      }
    } catch (RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
    return server;
  }

  int port() {
    return port;
  }

  int httpPort() {
    return httpPort;
  }

  String log() throws IOException {
    return Files.readString(log);
  }

  /** SIGTERM, and wait for the process to end. */
  void terminate() throws InterruptedException {
    process.destroy();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }
}
