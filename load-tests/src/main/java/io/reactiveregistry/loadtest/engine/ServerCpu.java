package io.reactiveregistry.loadtest.engine;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a local server process's CPU time from {@code /proc} (Linux): the whole process, and the
 * share of its JIT compilers and garbage collector — which a server warming up spends most of its
 * time in, and which a long-running server does not, so that a run's figure can be read both ways.
 */
public final class ServerCpu {
  /** USER_HZ: the unit of utime and stime in /proc; 100 on every mainstream Linux. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ServerCpu() {}

  /** CPU seconds so far: the process's, and those of its JIT compiler and GC threads (-1: unknown). */
  public record Reading(double total, double jit, double gc) {
    /** A process whose CPU cannot be read (or is not a process of its own). */
    public static final Reading UNKNOWN = new Reading(-1, -1, -1);

    /** What was spent from {@code before} to this reading. */
    public Reading since(Reading before) {
      return new Reading(total - before.total, Math.max(0, jit - before.jit), Math.max(0, gc - before.gc));
    }
  }

  /** The process's CPU so far, with its JIT and GC threads' share; {@link Reading#UNKNOWN} if unreadable. */
  public static Reading read(long pid) {
    Path process = Path.of("/proc", Long.toString(pid));
    try {
      double total = seconds(Files.readString(process.resolve("stat")));
      double jit = 0;
      double gc = 0;
      try (DirectoryStream<Path> threads = Files.newDirectoryStream(process.resolve("task"))) {
        for (Path thread : threads) {
          String stat;
          try {
            stat = Files.readString(thread.resolve("stat"));
          } catch (IOException gone) {
            continue; // the thread ended meanwhile
          }
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          if (name.contains("CompilerThre")) {
            jit += seconds(stat);
          } else if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
            gc += seconds(stat);
          }
        }
      }
      return new Reading(total, jit, gc);
    } catch (IOException | RuntimeException e) {
      return Reading.UNKNOWN;
    }
  }

  private static double seconds(String stat) {
    // The command name is in parentheses and may contain spaces: fields count from after it.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long utime = Long.parseLong(fields[11]);
    long stime = Long.parseLong(fields[12]);
    return (utime + stime) / TICKS_PER_SECOND;
  }
}
