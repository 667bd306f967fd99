package io.reactiveregistry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.spi.FilterReply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.rpc.SupportedRpcType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The throwaway group a cluster member warms Raft's leader code up with: real Ratis servers on
 * loopback ports, over each RPC a member may use (Netty for plain links, gRPC under TLS).
 */
class LeaderPathWarmUpTest {
  @ParameterizedTest
  @EnumSource(value = SupportedRpcType.class, names = {"NETTY", "GRPC"})
  void everyServerOfTheGroupLeadsOnceAndNothingIsLeftInTheDataDirectory(SupportedRpcType rpc, @TempDir Path dataDir)
      throws Exception {
    Path leftOver = Files.createDirectories(dataDir.resolve(LeaderPathWarmUp.DIRECTORY).resolve("from-a-kill"));
    Files.writeString(leftOver.resolve("segment"), "left by a member killed while warming up");

    LeaderPathWarmUp warmUp = LeaderPathWarmUp.start(dataDir, rpc);

    assertThat(warmUp.await(Duration.ofSeconds(60))).as("leaderships the throwaway group went through").isEqualTo(3);
    assertThat(dataDir.resolve(LeaderPathWarmUp.DIRECTORY)).doesNotExist();
  }

  @Test
  void theRefusalsOfALeaderHandingOverDecodeAsWhatTheyAre() {
    assertThat(LeaderPathWarmUp.decodeRefusals()).containsExactly(LeaderSteppingDownException.class,
        NotLeaderException.class, LeaderNotReadyException.class);
  }

  @Test
  void aMemberClosedWhileWarmingUpStopsItAndCleansUp(@TempDir Path dataDir) {
    LeaderPathWarmUp warmUp = LeaderPathWarmUp.start(dataDir, SupportedRpcType.NETTY);

    long start = System.nanoTime();
    warmUp.stop();

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(dataDir.resolve(LeaderPathWarmUp.DIRECTORY)).doesNotExist();
  }

  @Test
  void theServersLogKeepsRatisLinesAboutTheThrowawayGroupOut() {
    WarmUpLogFilter filter = new WarmUpLogFilter();
    LoggerContext context = new LoggerContext();
    Logger ratis = context.getLogger("org.apache.ratis.server.RaftServer$Division");
    Logger registry = context.getLogger("io.reactiveregistry.server.storage.RatisStore");

    assertThat(filter.decide(event(ratis, "main", "leader-warm-up-3@group-CF2D: Failed to recognize "
        + "leader-warm-up-2 as leader"))).isEqualTo(FilterReply.DENY);
    assertThat(filter.decide(event(ratis, "leader-warm-up-1@group-CF2D->leader-warm-up-3-LogAppenderDefault",
        "Failed to appendEntries"))).isEqualTo(FilterReply.DENY);
    assertThat(filter.decide(event(ratis, "NettyRpcService-workerGroup--thread2", "n3@group-E088: Failed to "
        + "recognize n2 as leader"))).as("the real group's lines").isEqualTo(FilterReply.NEUTRAL);
    assertThat(filter.decide(event(registry, "main", "the directory leader-warm-up-1 is left")))
        .as("the registry's own lines").isEqualTo(FilterReply.NEUTRAL);
  }

  private static LoggingEvent event(Logger logger, String thread, String message) {
    LoggingEvent event = new LoggingEvent(Logger.class.getName(), logger, Level.WARN, message, null, null);
    event.setThreadName(thread);
    return event;
  }
}
