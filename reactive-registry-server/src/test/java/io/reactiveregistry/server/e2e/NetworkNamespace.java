package io.reactiveregistry.server.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A non-loopback peer made by the test itself, the only kind a test here may talk to: a Linux
 * network namespace joined to the test's own by a veth pair with two addresses of a
 * documentation range (RFC 5737, never routed anywhere) that no interface of this machine uses —
 * some machines number their own interface from one of them, and the test must never reach this
 * machine's own interface instead of its peer. A server started in it ({@link
 * ServerProcess#startIn}) sees the test's connections come from {@link #hostAddress()}, which is
 * not a loopback address. Needs root (or CAP_NET_ADMIN); {@link #create()} says when the machine
 * does not allow it. {@link #close()} removes the namespace and the pair.
 */
final class NetworkNamespace implements AutoCloseable {
  private final String name;
  private final String hostSide;
  private final String hostAddress;
  private final String namespaceAddress;

  private NetworkNamespace(String name, String hostSide, String hostAddress, String namespaceAddress) {
    this.name = name;
    this.hostSide = hostSide;
    this.hostAddress = hostAddress;
    this.namespaceAddress = namespaceAddress;
  }

  /** A namespace and its link, or null when this machine does not let the test make them (or uses every range). */
  static NetworkNamespace create() throws IOException, InterruptedException {
    long pid = ProcessHandle.current().pid();
    // Names and a /30 of their own per test JVM, so that two runs on one machine do not collide.
    int block = (int) (pid % 63);
    String name = "rr-test-" + pid;
    String hostSide = "rrh" + pid % 1_000_000;
    String nsSide = "rrn" + pid % 1_000_000;
    String range = unusedDocumentationRange();
    if (range == null) {
      return null;
    }
    String hostAddress = range + (4 * block + 1);
    String namespaceAddress = range + (4 * block + 2);
    NetworkNamespace namespace = new NetworkNamespace(name, hostSide, hostAddress, namespaceAddress);
    if (!run("ip", "netns", "add", name)) {
      return null;
    }
    try {
      boolean made = run("ip", "link", "add", hostSide, "type", "veth", "peer", "name", nsSide)
          && run("ip", "link", "set", nsSide, "netns", name)
          && run("ip", "addr", "add", hostAddress + "/30", "dev", hostSide)
          && run("ip", "link", "set", hostSide, "up")
          && run("ip", "netns", "exec", name, "ip", "addr", "add", namespaceAddress + "/30", "dev", nsSide)
          && run("ip", "netns", "exec", name, "ip", "link", "set", nsSide, "up")
          && run("ip", "netns", "exec", name, "ip", "link", "set", "lo", "up");
      if (!made) {
        namespace.close();
        return null;
      }
      return namespace;
    } catch (IOException | InterruptedException | RuntimeException e) {
      namespace.close();
      throw e;
    }
  }

  /** The first of the documentation ranges (as its first three octets) that no local interface is in. */
  private static String unusedDocumentationRange() throws SocketException {
    List<String> inUse = new ArrayList<>();
    for (NetworkInterface device : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      for (InetAddress address : Collections.list(device.getInetAddresses())) {
        inUse.add(address.getHostAddress());
      }
    }
    for (String range : List.of("198.51.100.", "203.0.113.", "192.0.2.")) {
      if (inUse.stream().noneMatch(address -> address.startsWith(range))) {
        return range;
      }
    }
    return null;
  }

  /** The test's side of the link: where its connections come from, as the server sees them. */
  String hostAddress() {
    return hostAddress;
  }

  /** The namespace's side: where a server in it is reached. */
  String namespaceAddress() {
    return namespaceAddress;
  }

  /** The command prefix that runs a command inside the namespace. */
  List<String> exec() {
    return List.of("ip", "netns", "exec", name);
  }

  /** Runs a command inside the namespace and returns what it printed (its exit status must be 0). */
  String run(List<String> command) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>(exec());
    full.addAll(command);
    // Into a file, not a pipe: a command that prints more than a pipe holds (a /metrics scrape)
    // would wait for a reader while this waits for it to end.
    java.nio.file.Path output = java.nio.file.Files.createTempFile("netns-run", ".out");
    try {
      Process process = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(output.toFile()).start();
      boolean ended = process.waitFor(30, TimeUnit.SECONDS);
      if (!ended) {
        process.destroyForcibly();
      }
      String printed = java.nio.file.Files.readString(output, StandardCharsets.UTF_8);
      if (!ended || process.exitValue() != 0) {
        throw new IllegalStateException(full + (ended ? " failed: " : " did not end within 30 s: ") + printed);
      }
      return printed;
    } finally {
      java.nio.file.Files.deleteIfExists(output);
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    run("ip", "netns", "del", name); // takes its end of the pair, and with it the other end
    run("ip", "link", "del", hostSide); // in case the pair was made but not moved
  }

  private static boolean run(String... command) throws IOException, InterruptedException {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException noSuchCommand) {
      return false; // no iproute2 here
    }
    process.getInputStream().readAllBytes();
    return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
  }
}
