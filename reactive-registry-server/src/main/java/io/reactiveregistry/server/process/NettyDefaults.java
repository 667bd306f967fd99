package io.reactiveregistry.server.process;

import io.netty.util.ResourceLeakDetector;

/**
 * What the server process changes in Netty's and Reactor Netty's defaults, each unless set with
 * its own system property. Applied by {@code Main} before anything starts (server processes in the
 * tests too); tests that start a server inside their own JVM keep the libraries' defaults.
 */
public final class NettyDefaults {
  static final String LEAK_DETECTION = "io.netty.leakDetection.level";
  static final String EVENT_LOOPS = "reactor.netty.ioWorkerCount";

  private NettyDefaults() {}

  public static void apply() {
    if (System.getProperty(LEAK_DETECTION) == null) {
      // Even sampling one buffer in 128 records a stack trace per sample: about 4 % of the CPU of
      // lone registrations, 2 % of pushes' (load-tests/RESULTS.md).
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
    if (System.getProperty(EVENT_LOOPS) == null) {
      // One event loop per core, where Reactor Netty would start at least four: nothing blocks
      // the server's loops, and on two cores four loops sleep and wake more often for frames
      // that arrive alone — 10-15 % more CPU for lone heartbeats and for pushes (RESULTS.md).
      System.setProperty(EVENT_LOOPS, Integer.toString(Math.max(1, Runtime.getRuntime().availableProcessors())));
    }
  }
}
