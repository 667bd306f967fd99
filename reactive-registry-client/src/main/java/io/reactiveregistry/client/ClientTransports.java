package io.reactiveregistry.client;

import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import reactor.netty.tcp.TcpClient;

/** Client transports for the registry's RSocket endpoints. */
public final class ClientTransports {
  private ClientTransports() {}

  /**
   * RSocket over TCP on a dedicated connection. {@code TcpClientTransport.create(host, port)}
   * would draw from Reactor Netty's shared connection pool, which holds at most 500 connections:
   * the 501st connection of a process would wait for another to close.
   */
  public static ClientTransport tcp(String host, int port) {
    return TcpClientTransport.create(TcpClient.newConnection().host(host).port(port));
  }
}
