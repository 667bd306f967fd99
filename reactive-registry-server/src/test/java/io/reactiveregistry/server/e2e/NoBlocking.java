package io.reactiveregistry.server.e2e;

import reactor.blockhound.BlockHound;

/**
 * Installs BlockHound once per test JVM, so a blocking call on a Netty or Reactor non-blocking
 * thread fails the end-to-end tests.
 */
public final class NoBlocking {
  private static boolean installed;

  private NoBlocking() {}

  public static synchronized void install() {
    if (installed) {
      return;
    }
    // install(...) also loads the integrations found by ServiceLoader (Reactor's marks its and
    // Netty's event-loop threads as non-blocking); BlockHound.builder().install() would not.
    BlockHound.install(builder -> builder
        // Logging goes through Logback's AsyncAppender, which only offers to a queue; its lock is
        // held for nanoseconds and never across I/O.
        .allowBlockingCallsInside("ch.qos.logback.core.AsyncAppenderBase", "append")
        // When a connection ends, RSocket cancels its keepalive timer: the JDK scheduler removes it
        // from its queue under that queue's lock, held for microseconds, never across I/O.
        .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
        // Netty 4.2's pooling allocator takes a short lock when it grows its pools.
        .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines"));
    installed = true;
  }
}
