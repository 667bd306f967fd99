package io.reactiveregistry.server.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports for cluster members that a test names before starting them (each member's
 * {@code --members} lists the others). Picked below the kernel's ephemeral range: a port from
 * that range, free when picked, can be taken before the member binds it by any outgoing
 * connection — the other members dialling in, say — whose local port the kernel chose.
 *
 * <p>Test JVMs run side by side (the build runs two forks and two modules at once), and a port
 * free when one picks it may be picked by another before either binds it. So a port handed out is
 * also reserved, machine-wide, by a file named for it in a folder of the temporary directory: the
 * file's creation is atomic, and a reservation older than {@link #RESERVED_FOR} no longer counts
 * (its test has bound the port by then, or is gone).
 */
public final class MemberPorts {
  static final Duration RESERVED_FOR = Duration.ofMinutes(5);
  private static final Path RESERVATIONS = Path.of(System.getProperty("java.io.tmpdir"), "reactive-registry-test-ports");

  private MemberPorts() {}

  public static List<Integer> free(int count) {
    int below = ephemeralRangeStart();
    int from = Math.max(1024, below - 12_000);
    List<Integer> ports = new ArrayList<>();
    int candidate = from + ThreadLocalRandom.current().nextInt(Math.max(1, below - from - 4 * count));
    while (ports.size() < count && candidate < below) {
      if (bindable(candidate) && reserve(candidate)) {
        ports.add(candidate);
      }
      candidate++;
    }
    if (ports.size() < count) {
      throw new IllegalStateException("no " + count + " free ports below " + below);
    }
    return ports;
  }

  /** Whether this JVM now holds the port's reservation: none held it, or its holder's is too old to count. */
  static boolean reserve(int port) {
    try {
      Files.createDirectories(RESERVATIONS);
      Path reservation = RESERVATIONS.resolve(Integer.toString(port));
      try {
        Files.createFile(reservation);
        return true;
      } catch (FileAlreadyExistsException held) {
        if (Files.getLastModifiedTime(reservation).toInstant().plus(RESERVED_FOR).isAfter(Instant.now())) {
          return false;
        }
        // Stale. Of the JVMs that find it so at once, the one whose rename succeeds may create it anew.
        Path taken = RESERVATIONS.resolve(port + "." + ProcessHandle.current().pid() + "." + System.nanoTime());
        try {
          Files.move(reservation, taken, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException another) {
          return false;
        }
        Files.delete(taken);
        return reserve(port);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot reserve port " + port + " under " + RESERVATIONS, e);
    }
  }

  static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static int ephemeralRangeStart() {
    try {
      // Read as lines: the JDK's readString trusts the size procfs reports and reads one byte.
      return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).strip()
          .split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768; // Linux's default
    }
  }
}
