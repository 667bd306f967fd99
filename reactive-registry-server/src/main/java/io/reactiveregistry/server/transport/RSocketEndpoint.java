package io.reactiveregistry.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.reactiveregistry.protocol.message.MoveRequest;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.http.SlowClients;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.ProtectedMode;
import io.rsocket.core.RSocketServer;
import io.rsocket.exceptions.ConnectionCloseException;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ServerTransport;
import io.rsocket.transport.netty.RSocketLengthCodec;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.transport.netty.server.WebsocketRouteTransport;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.WebsocketServerSpec;
import reactor.netty.http.websocket.WebsocketInbound;
import reactor.netty.http.websocket.WebsocketOutbound;
import reactor.netty.tcp.TcpServer;

/** Binds the RSocket responder to TCP. */
public final class RSocketEndpoint {
  /** The smallest frame limit RSocket-Java accepts is far below this; metadata needs room too. */
  private static final int MIN_FRAME_LIMIT = 64 * 1024;

  /** Every accepted connection, so that stopping the server closes them too, not only the port. */
  private final ChannelGroup connections = new DefaultChannelGroup("registry-connections", GlobalEventExecutor.INSTANCE);
  private volatile boolean stopping;
  private final PeerAddresses peers = new PeerAddresses();
  private final PeerCertificates certificates = new PeerCertificates();
  private final OutboundBacklogGuard backlogGuard;
  private final ConnectionChannels channels = new ConnectionChannels();
  private final ConnectionMoves moves = new ConnectionMoves();
  private final FragmentBudget fragmentBudget;
  private final ServerMeters meters;
  private final SetupAcceptor acceptor;
  private final ServerLimits limits;
  private final ConnectionDoor tcpDoor;
  private final ConnectionDoor webSocketDoor;
  /** TLS on both RSocket ports; null for plain TCP and WebSocket. */
  private final @Nullable SslContext tls;

  public RSocketEndpoint(RequestLayer layer, ServerLimits limits, InstantSource clock, ServerMeters meters,
      ProtectedMode protectedMode, Access access, @Nullable SslContext tls) {
    this.tls = tls;
    this.acceptor = new SetupAcceptor(layer, limits, meters, protectedMode, access, clock, Schedulers.parallel(),
        certificates, channels, moves);
    this.limits = limits;
    this.backlogGuard = new OutboundBacklogGuard(limits.maxOutboundBacklogBytes());
    this.meters = meters;
    this.fragmentBudget = new FragmentBudget(limits.fragments().total());
    meters.gauge("registry.fragments.held", "bytes of unfinished fragmented requests held, all connections",
        fragmentBudget::usedBytes);
    this.tcpDoor = door("tcp", limits.rsocketConnections(), meters);
    this.webSocketDoor = door("websocket", limits.rsocketConnections(), meters);
  }

  private static ConnectionDoor door(String port, ConnectionDoor.Limits limits, ServerMeters meters) {
    return new ConnectionDoor(port, limits, meters.connectionsRefused(port, "port"),
        meters.connectionsRefused(port, "address"));
  }

  public Mono<CloseableChannel> bindTcp(String host, int port) {
    TcpServer server = TcpServer.create().host(host).port(port);
    return rsocketServer().bind(TcpServerTransport.create(guarded(tls == null ? server
        : server.secure(spec -> spec.sslContext(tls))), frameLimit()));
  }

  /** RSocket over WebSocket at {@code /rsocket}: browsers, proxies, rsocket-js. Same routes, same limits. */
  public Mono<DisposableServer> bindWebSocket(String host, int port) {
    ServerTransport.ConnectionAcceptor rsocket = rsocketServer().asConnectionAcceptor(frameLimit());
    WebsocketServerSpec spec = WebsocketServerSpec.builder().maxFramePayloadLength(frameLimit()).build();
    HttpServer server = HttpServer.create().host(host).port(port);
    return SlowClients.bounded(tls == null ? server : server.secure(ssl -> ssl.sslContext(tls)),
            Duration.ofMillis(limits.httpIdleTimeoutMs()))
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
        .doOnConnection(this::accepted)
        .route(routes -> routes.ws("/rsocket", filtered(WebsocketRouteTransport.newHandler(rsocket)), spec))
        .bind()
        .map(DisposableServer.class::cast);
  }

  /** The WebSocket handler, with this connection's {@link InboundFrameFilter} in front of RSocket. */
  private BiFunction<WebsocketInbound, WebsocketOutbound, Publisher<Void>> filtered(
      BiFunction<WebsocketInbound, WebsocketOutbound, Publisher<Void>> handler) {
    return (in, out) -> {
      in.withConnection(connection -> connection.addHandlerLast("inbound-frame-filter",
          inboundFrameFilter(Framing.WEBSOCKET)));
      return handler.apply(in, out);
    };
  }

  private InboundFrameFilter inboundFrameFilter(Framing framing) {
    long perConnection = Math.max(limits.fragments().perConnection(), frameLimit());
    return new InboundFrameFilter(framing, frameLimit(), perConnection, fragmentBudget, meters);
  }

  private RSocketServer rsocketServer() {
    return RSocketServer.create(acceptor)
        .payloadDecoder(PayloadDecoder.DEFAULT)
        .maxInboundPayloadSize(frameLimit())
        .interceptors(registry -> registry.forConnection(peers));
  }

  private TcpServer guarded(TcpServer server) {
    return server
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
        .doOnConnection(this::accepted);
  }

  /** The channel stops being writable when this much waits for a peer; see {@link OutboundBacklogGuard}. */
  private WriteBufferWaterMark waterMark() {
    int high = limits.maxOutboundBacklogBytes();
    return new WriteBufferWaterMark(high / 2, high);
  }

  /** Every accepted connection, TCP or WebSocket: tracked for shutdown and guarded against unread backlogs. */
  private void accepted(Connection connection) {
    if (stopping) {
      connection.channel().close(); // accepted while the server was stopping
      return;
    }
    boolean tcp = connection.channel().pipeline().get(NettyPipeline.HttpCodec) == null;
    String refused = (tcp ? tcpDoor : webSocketDoor).admit(connection.channel());
    if (refused != null) {
      // On TCP the client reads why (its SETUP is refused); a WebSocket client has not upgraded yet.
      if (tcp) {
        ErrorFrames.refuse(connection.channel(), new RejectedSetupException(refused));
      } else {
        connection.channel().close();
      }
      return;
    }
    connections.add(connection.channel());
    channels.add(connection.channel());
    certificates.watch(connection.channel(), connection.channel().pipeline().get(SslHandler.class));
    if (tcp) { // WebSocket is bounded by HTTP's timeouts
      SetupGuard guard = new SetupGuard(limits.maxSetupBytes(), Duration.ofMillis(limits.setupTimeoutMs()));
      ChannelPipeline pipeline = connection.channel().pipeline();
      if (pipeline.get(NettyPipeline.SslHandler) != null) { // it reads frames: behind TLS, in the clear
        pipeline.addAfter(NettyPipeline.SslHandler, "setup-guard", guard);
      } else {
        pipeline.addFirst("setup-guard", guard);
      }
    }
    connection.addHandlerLast("outbound-backlog-guard", backlogGuard);
    // After the frame decoder, which the transport adds once this callback has run: exceptions
    // travel towards the tail, so only a handler behind the decoder sees the one it raises.
    connection.channel().eventLoop().execute(() -> {
      ChannelPipeline pipeline = connection.channel().pipeline();
      if (pipeline.get(RSocketLengthCodec.class) != null && pipeline.get(NettyPipeline.ReactiveBridge) != null) {
        pipeline.addBefore(NettyPipeline.ReactiveBridge, "inbound-frame-filter", inboundFrameFilter(Framing.TCP));
      }
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

  /**
   * Closes every connection the way RSocket means it: a {@code CONNECTION_CLOSE} error with the
   * reason, then the close once the frame is out; whatever is still open after {@code grace} is
   * closed outright. Completes as soon as every connection is closed: each closes once its frame
   * is written, so a stop waits milliseconds for this, not the whole grace.
   */
  // On TCP the frame is written straight to the channel and the channel closed once it is out:
  // RSocket's own sendErrorAndClose queues the frame behind its sender, which a connection that has
  // sent nothing since its SETUP did not always flush before it closed (about one stop in ten).
  public Mono<Void> closeConnectionsGracefully(String reason, Duration grace) {
    return Mono.defer(() -> {
      stopping = true;
      Set<SocketAddress> closedHere = new HashSet<>();
      List<Mono<Void>> closed = new ArrayList<>();
      for (Channel channel : connections) {
        if (channel.pipeline().get(RSocketLengthCodec.class) != null) {
          closedHere.add(channel.remoteAddress());
          ErrorFrames.sendAndClose(channel, channel.alloc(), new ConnectionCloseException(reason));
          closed.add(Mono.create(sink -> channel.closeFuture().addListener(done -> sink.success())));
        }
      }
      closed.addAll(peers.closeAll(reason, closedHere));
      return Mono.when(closed).timeout(grace, Mono.empty()).then(closeConnections());
    });
  }


  /**
   * Asks every client that honours {@code connection.move} to move; completes when each has
   * closed its connection here, or after {@code timeout}, with how many had not.
   */
  public Mono<Integer> moveClients(MoveRequest request, Duration timeout) {
    return moves.moveAll(request, timeout);
  }

  /** Asks up to {@code count} clients not asked before to move: how many were asked. */
  public int moveClients(int count, MoveRequest request) {
    return moves.move(count, request);
  }

  /** Asks up to {@code count} clients of {@code zone} not asked before to move: how many were asked. */
  public int moveClients(int count, MoveRequest request, String zone) {
    return moves.move(count, request, zone);
  }

  /** The zones the movable clients not yet asked to move gave. */
  public Set<String> clientZones() {
    return moves.clientZones();
  }

  /** Connections whose clients honour {@code connection.move} and were not asked to. */
  public int movableConnections() {
    return moves.stayed();
  }

  /** From now on a new connection is closed as soon as it is accepted. */
  public void stopAccepting() {
    stopping = true;
  }

  public int openConnections() {
    return acceptor.openConnections();
  }

  /** Whether any RSocket connection is open on either port, set up or not (peers' included). */
  public boolean hasConnections() {
    return !connections.isEmpty();
  }

}
