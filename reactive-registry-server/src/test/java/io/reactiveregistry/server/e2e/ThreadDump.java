package io.reactiveregistry.server.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;

/** Every thread's stack, for a test that timed out waiting on the in-process server: where it waited. */
final class ThreadDump {
  private ThreadDump() {}

  static String all() {
    StringBuilder dump = new StringBuilder();
    for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
      if (thread.getLockName() != null) {
        dump.append(" on ").append(thread.getLockName());
      }
      if (thread.getLockOwnerName() != null) {
        dump.append(" held by ").append(thread.getLockOwnerName());
      }
      dump.append('\n');
      for (StackTraceElement frame : thread.getStackTrace()) {
        dump.append("    at ").append(frame).append('\n');
      }
    }
    return dump.toString();
  }
}
