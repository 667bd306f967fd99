package io.reactiveregistry.server.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.storage.RaftNetty;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NettyDefaultsTest {
  /** Each copy of Netty's leak detector: its property, its level read and set by name. */
  record Copy(String property, Supplier<String> level, Consumer<String> setLevel) {}

  static final List<Copy> COPIES = List.of(
      new Copy("io.netty.leakDetection.level", () -> io.netty.util.ResourceLeakDetector.getLevel().name(),
          name -> io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.valueOf(name))),
      new Copy("io.grpc.netty.shaded.io.netty.leakDetection.level",
          () -> io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.getLevel().name(),
          name -> io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.setLevel(
              io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector.Level.valueOf(name))),
      new Copy("org.apache.ratis.thirdparty.io.netty.leakDetection.level",
          () -> org.apache.ratis.thirdparty.io.netty.util.ResourceLeakDetector.getLevel().name(),
          name -> org.apache.ratis.thirdparty.io.netty.util.ResourceLeakDetector.setLevel(
              org.apache.ratis.thirdparty.io.netty.util.ResourceLeakDetector.Level.valueOf(name))));

  /** Ratis's copy, which {@code Main} hands in. */
  static final NettyDefaults.LeakDetector RAFT = new NettyDefaults.LeakDetector(RaftNetty.LEAK_DETECTION,
      RaftNetty::disableLeakDetection);

  private final Map<String, String> levelsBefore = new HashMap<>();
  private final Map<String, String> propertiesBefore = new HashMap<>();
  private String loopsBefore;

  @BeforeEach
  void remember() {
    for (Copy copy : COPIES) {
      levelsBefore.put(copy.property(), copy.level().get());
      propertiesBefore.put(copy.property(), System.getProperty(copy.property()));
    }
    loopsBefore = System.getProperty(NettyDefaults.EVENT_LOOPS);
  }

  @AfterEach
  void restore() {
    // This JVM's servers are started already: only what later tests read is put back.
    for (Copy copy : COPIES) {
      copy.setLevel().accept(levelsBefore.get(copy.property()));
      restore(copy.property(), propertiesBefore.get(copy.property()));
    }
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
  void theServerRunsOneEventLoopPerCoreWithoutLeakDetectionInAnyOfItsNettiesUnlessTold() {
    for (Copy copy : COPIES) {
      System.clearProperty(copy.property());
      copy.setLevel().accept("SIMPLE");
    }
    System.clearProperty(NettyDefaults.EVENT_LOOPS);

    NettyDefaults.apply(RAFT);

    for (Copy copy : COPIES) {
      assertThat(copy.level().get()).as(copy.property()).isEqualTo("DISABLED");
    }
    assertThat(System.getProperty(NettyDefaults.EVENT_LOOPS))
        .isEqualTo(Integer.toString(Runtime.getRuntime().availableProcessors()));
    assertThat(NettyDefaults.LEAK_DETECTORS).extracting(NettyDefaults.LeakDetector::property)
        .containsExactlyElementsOf(COPIES.subList(0, 2).stream().map(Copy::property).toList());
    assertThat(RaftNetty.LEAK_DETECTION).isEqualTo(COPIES.get(2).property());
  }

  @Test
  void whatTheOperatorSetStays() {
    for (Copy copy : COPIES) {
      System.setProperty(copy.property(), "paranoid");
      copy.setLevel().accept("PARANOID");
    }
    System.setProperty(NettyDefaults.EVENT_LOOPS, "7");

    NettyDefaults.apply(RAFT);

    for (Copy copy : COPIES) {
      assertThat(copy.level().get()).as(copy.property()).isEqualTo("PARANOID");
    }
    assertThat(System.getProperty(NettyDefaults.EVENT_LOOPS)).isEqualTo("7");
  }
}
