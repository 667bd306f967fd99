package io.reactiveregistry.server.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NettyDefaultsTest {
  private ResourceLeakDetector.Level levelBefore;
  private String leakBefore;
  private String loopsBefore;

  @BeforeEach
  void remember() {
    levelBefore = ResourceLeakDetector.getLevel();
    leakBefore = System.getProperty(NettyDefaults.LEAK_DETECTION);
    loopsBefore = System.getProperty(NettyDefaults.EVENT_LOOPS);
  }

  @AfterEach
  void restore() {
    // This JVM's servers are started already: only what later tests read is put back.
    ResourceLeakDetector.setLevel(levelBefore);
    restore(NettyDefaults.LEAK_DETECTION, leakBefore);
    restore(NettyDefaults.EVENT_LOOPS, loopsBefore);
  }

  private static void restore(String name, String value) {
    if (value == null) {
      System.clearProperty(name);
    } else {
      System.setProperty(name, value);
    }
  }

  @Test
  void theServerRunsOneEventLoopPerCoreWithoutLeakDetectionUnlessTold() {
    System.clearProperty(NettyDefaults.LEAK_DETECTION);
    System.clearProperty(NettyDefaults.EVENT_LOOPS);

    NettyDefaults.apply();

    assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.DISABLED);
    assertThat(System.getProperty(NettyDefaults.EVENT_LOOPS))
        .isEqualTo(Integer.toString(Runtime.getRuntime().availableProcessors()));
  }

  @Test
  void whatTheOperatorSetStays() {
    System.setProperty(NettyDefaults.LEAK_DETECTION, "paranoid");
    System.setProperty(NettyDefaults.EVENT_LOOPS, "7");
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);

    NettyDefaults.apply();

    assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    assertThat(System.getProperty(NettyDefaults.EVENT_LOOPS)).isEqualTo("7");
  }
}
