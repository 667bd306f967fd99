package io.reactiveregistry.bench.etcd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A local process's CPU time so far, from {@code /proc/<pid>/stat} (Linux). */
final class ProcessCpu {
  /** USER_HZ: the unit of utime and stime in /proc; 100 on every mainstream Linux. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcessCpu() {}

  static double seconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    // The command name is in parentheses and may contain spaces: fields count from after it.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
  }
}
