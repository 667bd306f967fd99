package bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * A JUnit Platform listener (found through its service file) that appends a line per test class
 * to the file named by the environment variable {@code SUITE_CPU_OUT} (test JVMs inherit
 * Maven's environment): the class, the CPU its test JVM
 * spent while it ran, the CPU of the processes it started and reaped meanwhile (the kernel's
 * cutime + cstime of the test JVM: server processes, cluster members, the CLI), and its wall
 * clock. Test JVMs run one class at a time, so the figures are the class's own. Used by
 * suite-cpu.sh; not part of the build.
 */
public final class CpuPerTestClass implements TestExecutionListener {
  private static final Path OUT = Path.of(System.getenv().getOrDefault("SUITE_CPU_OUT", "suite-cpu.txt"));
  private final Map<String, long[]> started = new ConcurrentHashMap<>();

  @Override
  public void executionStarted(TestIdentifier test) {
    if (test.getSource().orElse(null) instanceof ClassSource) {
      started.put(test.getUniqueId(), new long[] {ownCpuNanos(), childrenCpuNanos(), System.nanoTime()});
    }
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    long[] at = started.remove(test.getUniqueId());
    if (at == null) {
      return;
    }
    String line = String.format("%.1f %.1f %.1f %s%n", (ownCpuNanos() - at[0]) / 1e9,
        (childrenCpuNanos() - at[1]) / 1e9, (System.nanoTime() - at[2]) / 1e9,
        ((ClassSource) test.getSource().get()).getClassName());
    try {
      Files.writeString(OUT, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static long ownCpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** The reaped children's CPU: fields 16 and 17 of /proc/self/stat, in clock ticks (100 a second). */
  private static long childrenCpuNanos() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) * 10_000_000L;
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
