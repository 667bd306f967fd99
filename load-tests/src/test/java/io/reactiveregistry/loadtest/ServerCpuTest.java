package io.reactiveregistry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.loadtest.engine.ServerCpu;
import org.junit.jupiter.api.Test;

class ServerCpuTest {
  @Test
  void aProcessCpuIsReadWithItsJitCompilersAndGarbageCollectorsShare() {
    long pid = ProcessHandle.current().pid();
    ServerCpu.Reading before = ServerCpu.read(pid);
    long sum = 0;
    for (int i = 0; i < 50_000_000; i++) { // something for the JIT to compile, and CPU to count
      sum += Integer.toString(i).hashCode();
    }
    ServerCpu.Reading after = ServerCpu.read(pid);

    assertThat(sum).isNotZero();
    // This JVM has been compiling since it started (the test framework itself).
    assertThat(after.jit()).isPositive();
    assertThat(after.jit() + after.gc()).isLessThanOrEqualTo(after.total());
    assertThat(after.since(before).total()).isPositive();
    assertThat(ServerCpu.read(Long.MAX_VALUE).total()).as("no such process").isEqualTo(-1);
  }
}
