package io.reactiveregistry.server.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports for cluster members that a test names before starting them (each member's
 * {@code --members} lists the others). Picked below the kernel's ephemeral range: a port from
 * that range, free when picked, can be taken before the member binds it by any outgoing
 * connection — the other members dialling in, say — whose local port the kernel chose.
 */
public final class MemberPorts {
  private MemberPorts() {}

  public static List<Integer> free(int count) {
    int below = ephemeralRangeStart();
    int from = Math.max(1024, below - 12_000);
    List<Integer> ports = new ArrayList<>();
    int candidate = from + ThreadLocalRandom.current().nextInt(Math.max(1, below - from - 4 * count));
    while (ports.size() < count && candidate < below) {
      if (bindable(candidate)) {
        ports.add(candidate);
      }
      candidate++;
    }
    if (ports.size() < count) {
      throw new IllegalStateException("no " + count + " free ports below " + below);
    }
    return ports;
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
