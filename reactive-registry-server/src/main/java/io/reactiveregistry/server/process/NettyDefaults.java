package io.reactiveregistry.server.process;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;

/**
 * What the server process changes in Netty's and Reactor Netty's defaults, each unless set with
 * its own system property. Applied by {@code Main} before anything starts (server processes in the
 * tests too); tests that start a server inside their own JVM keep the libraries' defaults.
 */
public final class NettyDefaults {
  static final String LEAK_DETECTION = "io.netty.leakDetection.level";
  static final String EVENT_LOOPS = "reactor.netty.ioWorkerCount";

  /**
   * The server carries three copies of Netty, each with its own leak detector and its own
   * property: Reactor Netty's (the RSocket, WebSocket and HTTP ports), gRPC's shaded one (the
   * Nacos door's gRPC port) and Ratis's (the Raft links; handed in by {@code Main}, since only
   * the storage package knows Ratis). The property is Netty's with the copy's package in front.
   */
  public record LeakDetector(String property, Runnable disable) {}

  static final List<LeakDetector> LEAK_DETECTORS = List.of(
      new LeakDetector(LEAK_DETECTION, () -> ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED)),
      new LeakDetector("io.grpc.netty.shaded." + LEAK_DETECTION,
          () -> io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.setLevel(
              io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.Level.DISABLED)));

  private NettyDefaults() {}

  /** Applies the defaults; {@code otherCopies}: the leak detectors of copies of Netty this package cannot name. */
  public static void apply(LeakDetector... otherCopies) {
    List<LeakDetector> detectors = new ArrayList<>(LEAK_DETECTORS);
    detectors.addAll(List.of(otherCopies));
    for (LeakDetector detector : detectors) {
      if (System.getProperty(detector.property()) == null) {
        // Even sampling one buffer in 128 records a stack trace per sample: about 4 % of the CPU
        // of lone registrations, 2 % of pushes' (load-tests/RESULTS.md), and 1.7 % of a Nacos
        // client's registrations over gRPC.
        detector.disable().run();
      }
    }
    if (System.getProperty(EVENT_LOOPS) == null) {
      // One event loop per core, where Reactor Netty would start at least four: nothing blocks
      // the server's loops, and on two cores four loops sleep and wake more often for frames
      // that arrive alone — 10-15 % more CPU for lone heartbeats and for pushes (RESULTS.md).
      System.setProperty(EVENT_LOOPS, Integer.toString(Math.max(1, Runtime.getRuntime().availableProcessors())));
    }
  }
}
