package io.reactiveregistry.loadtest.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a local server process's CPU time from {@code /proc/<pid>/stat} (Linux). */
public final class ServerCpu {
  /** USER_HZ: the unit of utime and stime in /proc; 100 on every mainstream Linux. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ServerCpu() {}

  /** User plus system CPU seconds so far, or -1 when it cannot be read. */
  public static double cpuSeconds(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name is in parentheses and may contain spaces: fields count from after it.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long utime = Long.parseLong(fields[11]);
      long stime = Long.parseLong(fields[12]);
      return (utime + stime) / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
