package io.reactiveregistry.server.e2e;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/** A real server on a free loopback port, and the clients a test opened against it. */
public final class ServerFixture implements AutoCloseable {
  private final RegistryServer server;
  private final List<WireClient> clients = new ArrayList<>();

  public ServerFixture(ServerConfig config) {
    this(config, InstantSource.system());
  }

  /** A server timed by {@code clock}: a test moves time instead of waiting for it. */
  public ServerFixture(ServerConfig config, InstantSource clock) {
    // Generous: the first server of a cold test JVM (BlockHound, class loading, Ratis's first election)
    // on a loaded machine has taken over 10 s; a start that works takes well under one.
    this.server = RegistryServer.start(config, clock).block(Duration.ofSeconds(30));
  }

  public ServerFixture() {
    this(ServerConfig.ephemeralLoopback());
  }

  public RegistryServer server() {
    return server;
  }

  public int port() {
    return server.tcpPort();
  }

  public WireClient connect(String client) {
    WireClient wire = WireClient.connect(port(), client);
    clients.add(wire);
    return wire;
  }

  /** A client over RSocket's WebSocket transport. */
  public WireClient connectWebSocket(String client) {
    WireClient wire = WireClient.connectWebSocket(server.webSocketPort(), client);
    clients.add(wire);
    return wire;
  }

  @Override
  public void close() {
    clients.forEach(WireClient::close);
    server.disposeNow(Duration.ofSeconds(5));
  }
}
