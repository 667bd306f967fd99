package io.reactiveregistry.server.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A local process's CPU time so far, and its JIT compilers' part of it, from {@code /proc} (Linux):
 * what the side-by-side benches read around each phase, for every server alike.
 */
public final class ProcessCpu {
  /** USER_HZ: the unit of utime and stime in /proc; 100 on every mainstream Linux. */
  private static final long MILLIS_PER_TICK = 10;

  private ProcessCpu() {}

  /** The process's CPU time so far (user and system). */
  public static long cpuMillis(Process process) throws IOException {
    return ticks(Path.of("/proc", Long.toString(process.pid()), "stat")) * MILLIS_PER_TICK;
  }

  /**
   * CPU time so far of the process's JIT compiler threads ({@code C1/C2 CompilerThread}): what a
   * JVM still compiling spends besides the work itself.
   */
  public static long compilerMillis(Process process) throws IOException {
    long ticks = 0;
    try (var tasks = Files.list(Path.of("/proc", Long.toString(process.pid()), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          String name = Files.readString(task.resolve("comm"));
          if (name.startsWith("C") && name.contains("CompilerThre")) { // the kernel cuts names at 15 characters
            ticks += ticks(task.resolve("stat"));
          }
        } catch (IOException gone) {
          // a thread that ended meanwhile
        }
      }
    }
    return ticks * MILLIS_PER_TICK;
  }

  private static long ticks(Path stat) throws IOException {
    String text = Files.readString(stat);
    // The command name is in parentheses and may contain spaces: fields count from after it.
    String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
