package io.reactiveregistry.server.e2e;

import java.util.ArrayList;
import java.util.List;

/**
 * A free port P whose P + 1000 is free too: Nacos's clients are given P and reach gRPC at P + 1000,
 * so a test's server takes both. Picked below the kernel's ephemeral range, as {@link MemberPorts}
 * picks members' ports, so that no outgoing connection takes one before the server binds it.
 */
public final class NacosPorts {
  private NacosPorts() {}

  /** P, with P + 1000 free. */
  public static int freePair() {
    for (int attempt = 0; attempt < 50; attempt++) {
      for (int port : MemberPorts.free(4)) {
        if (port + 1000 < 65_536 && MemberPorts.bindable(port + 1000)
            && MemberPorts.reserve(port + 1000)) {
          return port;
        }
      }
    }
    throw new IllegalStateException("no free port P with P + 1000 free in 50 attempts");
  }

  /** {@code count} such pairs, none overlapping. */
  public static List<Integer> freePairs(int count) {
    List<Integer> pairs = new ArrayList<>();
    while (pairs.size() < count) {
      int port = freePair();
      if (pairs.stream().noneMatch(taken -> Math.abs(taken - port) <= 1 || Math.abs(taken + 1000 - port) <= 1
          || Math.abs(taken - 1000 - port) <= 1)) {
        pairs.add(port);
      }
    }
    return pairs;
  }
}
