package io.reactiveregistry.server.e2e;

import java.lang.instrument.Instrumentation;

/**
 * A Java agent that only keeps the JVM's {@link Instrumentation}, for {@link BlockHoundMain}:
 * given to BlockHound, it spares the self-attach, and {@link BlockHoundMain} can keep BlockHound
 * from appending to the boot class path at run time, which would turn class sharing off (see
 * {@link ServerClassArchive}). Started with {@code -javaagent:} a jar whose manifest names this class.
 */
public final class BlockHoundAgent {
  private static volatile Instrumentation instrumentation;

  private BlockHoundAgent() {}

  public static void premain(String args, Instrumentation given) {
    instrumentation = given;
  }

  /** The JVM's instrumentation, or null when this agent was not started. */
  static Instrumentation instrumentation() {
    return instrumentation;
  }
}
