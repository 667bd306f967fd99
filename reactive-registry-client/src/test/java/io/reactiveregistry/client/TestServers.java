package io.reactiveregistry.client;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import java.time.Duration;
import reactor.blockhound.BlockHound;

/** Real servers on loopback for the client's tests, with blocking detection on. */
final class TestServers {
  private static boolean blockHound;

  private TestServers() {}

  /** Short heartbeat timings, so that a client that stopped heartbeating is noticed within two seconds. */
  static ServerConfig config(int port) {
    return ServerConfig.ephemeralLoopback().withTcpPort(port).withHeartbeat(new HeartbeatTimings(100, 1_000, 2_000));
  }

  static synchronized RegistryServer start(int port) {
    if (!blockHound) {
      // The same allowances as the server's tests (NoBlocking): a log append, and RSocket cancelling
      // its keepalive timer (the JDK scheduler's queue lock) when a connection ends.
      BlockHound.install(builder -> builder
          .allowBlockingCallsInside("ch.qos.logback.core.AsyncAppenderBase", "append")
          .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
          // Netty 4.2's pooling allocator takes a short lock when it grows its pools.
          .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines"));
      blockHound = true;
    }
    return RegistryServer.start(config(port)).block(Duration.ofSeconds(10));
  }

  static String address(RegistryServer server) {
    return "tcp://127.0.0.1:" + server.tcpPort();
  }
}
