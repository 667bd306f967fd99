package io.reactiveregistry.server.transport;

import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.channel.WriteBufferWaterMark;
import io.reactiveregistry.server.audit.TraceHub;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import java.time.InstantSource;
import reactor.core.publisher.Mono;
import reactor.netty.tcp.TcpServer;

/** Binds the RSocket responder to TCP. */
public final class RSocketEndpoint {
  /** The smallest frame limit RSocket-Java accepts is far below this; metadata needs room too. */
  private static final int MIN_FRAME_LIMIT = 64 * 1024;

  /** Every accepted connection, so that stopping the server closes them too, not only the port. */
  private final ChannelGroup connections = new DefaultChannelGroup("registry-connections", GlobalEventExecutor.INSTANCE);
  private volatile boolean stopping;
  private final SetupAcceptor acceptor;
  private final RequestHandlers handlers;
  private final ServerLimits limits;

  public RSocketEndpoint(RegistryRuntime runtime, TraceHub trace, ServerIdentity identity, ServerLimits limits,
      InstantSource clock) {
    this.handlers = new RequestHandlers(runtime, trace, identity, clock);
    this.acceptor = new SetupAcceptor(handlers, runtime, limits);
    this.limits = limits;
  }

  public Mono<CloseableChannel> bindTcp(String host, int port) {
    int frameLimit = frameLimit();
    return RSocketServer.create(acceptor)
        .payloadDecoder(PayloadDecoder.DEFAULT)
        .maxInboundPayloadSize(frameLimit)
        .interceptors(registry -> registry.forConnection(new PeerAddresses()))
        .bind(TcpServerTransport.create(guarded(TcpServer.create().host(host).port(port)), frameLimit));
  }

  private TcpServer guarded(TcpServer server) {
    int high = limits.maxOutboundBacklogBytes();
    OutboundBacklogGuard guard = new OutboundBacklogGuard(high);
    return server
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
        .doOnConnection(connection -> {
          if (stopping) {
            connection.channel().close(); // accepted while the port was closing
            return;
          }
          connections.add(connection.channel());
          connection.addHandlerLast("outbound-backlog-guard", guard);
        });
  }

  /**
   * Frames and reassembled payloads are accepted up to twice the body limit, so that a body a
   * little too large gets a clean {@code LIMIT_EXCEEDED} on a connection that stays open; only a
   * frame beyond that (which the server will not buffer) closes the connection.
   */
  private int frameLimit() {
    long doubled = 2L * limits.maxPayloadBytes();
    return (int) Math.min(0xFF_FFFF, Math.max(MIN_FRAME_LIMIT, doubled));
  }

  /**
   * Closes every open connection (their instances are released as each closes). Does not wait:
   * the returned Mono completes when all are closed.
   */
  public Mono<Void> closeConnections() {
    stopping = true;
    ChannelGroupFuture closing = connections.close();
    return Mono.create(sink -> closing.addListener(done -> sink.success()));
  }

  public int openConnections() {
    return acceptor.openConnections();
  }

  public long droppedHeartbeats() {
    return handlers.droppedHeartbeats();
  }
}
