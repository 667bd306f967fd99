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
        // Cancelling a timer (RSocket's keepalive, when a connection closes) removes it from the
        // JDK scheduler's queue under that queue's lock, held for microseconds, never across I/O.
        .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor", "remove"));
    installed = true;
  }
}
