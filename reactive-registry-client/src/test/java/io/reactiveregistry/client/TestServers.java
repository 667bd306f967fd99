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
      // The same allowances as the server's tests (NoBlocking): a log append, and the JDK
      // scheduler's queue lock when a cancelled timer is removed.
      BlockHound.install(builder -> builder
          .allowBlockingCallsInside("ch.qos.logback.core.AsyncAppenderBase", "append")
          .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor", "remove"));
      blockHound = true;
    }
    return RegistryServer.start(config(port)).block(Duration.ofSeconds(10));
  }

  static String address(RegistryServer server) {
    return "tcp://127.0.0.1:" + server.tcpPort();
  }
}
