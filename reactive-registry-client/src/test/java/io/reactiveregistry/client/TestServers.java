package io.reactiveregistry.client;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import java.time.Duration;

/**
 * Real servers on loopback for the client's tests. Blocking detection is on in this JVM from the
 * start, with the server tests' allowances ({@code NonBlockingAllowances}).
 */
final class TestServers {
  private TestServers() {}

  /** Short heartbeat timings, so that a client that stopped heartbeating is noticed within two seconds. */
  static ServerConfig config(int port) {
    return ServerConfig.ephemeralLoopback().withTcpPort(port).withHeartbeat(new HeartbeatTimings(100, 1_000, 2_000));
  }

  static RegistryServer start(int port) {
    return RegistryServer.start(config(port)).block(Duration.ofSeconds(10));
  }

  static String address(RegistryServer server) {
    return "tcp://127.0.0.1:" + server.tcpPort();
  }
}
