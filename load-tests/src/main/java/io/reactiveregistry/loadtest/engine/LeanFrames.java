package io.reactiveregistry.loadtest.engine;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.rsocket.Payload;
import io.rsocket.frame.FrameLengthCodec;
import io.rsocket.frame.KeepAliveFrameCodec;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.util.ByteBufPayload;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import reactor.netty.resources.LoopResources;

/**
 * What the load kit's lean clients share: a plain Netty connection carrying RSocket frames (a
 * 3-byte length before each, as RSocket over TCP), the SETUP and the KEEPALIVEs that keep the
 * server from closing it, and the requests' route metadata, all written with rsocket-java's own
 * frame codecs. The lean clients read the frames they need and nothing else: they cost the
 * generator a fraction of the RSocket client's CPU, so that a wide benchmark measures the server.
 */
public final class LeanFrames {
  /** The client's KEEPALIVE period, and how long the server may go unheard before it gives up. */
  private static final int KEEPALIVE_MS = 20_000;
  private static final int MAX_LIFETIME_MS = 90_000;

  private LeanFrames() {}

  /**
   * One event loop per core, shared by every lean connection of the process, its threads daemons;
   * the native transport where Reactor Netty finds it (epoll here), as the registry's own loops.
   */
  private static final class Loops {
    static final LoopResources RESOURCES = LoopResources.create("lean-client",
        Runtime.getRuntime().availableProcessors(), true);
    static final EventLoopGroup GROUP = RESOURCES.onClient(true);
    static final Class<? extends Channel> CHANNEL = RESOURCES.onChannelClass(SocketChannel.class, GROUP);
  }

  /** The lean connections' event loops: for what a client schedules outside a connection (a retry). */
  public static EventLoopGroup loops() {
    return Loops.GROUP;
  }

  /** Connects to {@code host:port} (over TLS when {@code tls} is given), whole frames going to {@code handler}. */
  public static ChannelFuture connect(String host, int port, SslContext tls, ChannelHandler handler) {
    return connect(host, port, tls, handler, null);
  }

  /**
   * As above, from the loopback address {@code from} (null: any), as a fleet's clients come from
   * their own machines: the server's per-address connection limit applies to each, not to all.
   */
  public static ChannelFuture connect(String host, int port, SslContext tls, ChannelHandler handler, String from) {
    return new Bootstrap().group(Loops.GROUP).channel(Loops.CHANNEL).option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel channel) {
            if (tls != null) {
              channel.pipeline().addLast(tls.newHandler(channel.alloc(), host, port));
            }
            channel.pipeline().addLast(new LengthFieldBasedFrameDecoder(FrameLengthCodec.FRAME_LENGTH_MASK, 0,
                FrameLengthCodec.FRAME_LENGTH_SIZE, 0, FrameLengthCodec.FRAME_LENGTH_SIZE), handler);
          }
        })
        .connect(new InetSocketAddress(host, port), from == null ? null : new InetSocketAddress(from, 0));
  }

  /**
   * Writes the SETUP with {@code setup} (released here) and schedules a KEEPALIVE every period
   * (the server closes a connection it has not heard one on for the lifetime); cancel the
   * returned task when the connection ends.
   */
  public static ScheduledFuture<?> open(ChannelHandlerContext ctx, Payload setup) {
    try {
      write(ctx, SetupFrameCodec.encode(ctx.alloc(), false, KEEPALIVE_MS, MAX_LIFETIME_MS,
          Protocol.METADATA_MIME_TYPE, Protocol.DATA_MIME_TYPE, setup));
    } finally {
      setup.release();
    }
    return ctx.executor().scheduleAtFixedRate(() -> {
      write(ctx, KeepAliveFrameCodec.encode(ctx.alloc(), true, 0, null));
      ctx.flush();
    }, KEEPALIVE_MS, KEEPALIVE_MS, TimeUnit.MILLISECONDS);
  }

  /** Answers a KEEPALIVE that asks for one. */
  public static void keepAlive(ChannelHandlerContext ctx, ByteBuf keepAliveFrame) {
    if (KeepAliveFrameCodec.respondFlag(keepAliveFrame)) {
      write(ctx, KeepAliveFrameCodec.encode(ctx.alloc(), false, 0, null));
      ctx.flush();
    }
  }

  /** A request's payload: the JSON body and the route in composite metadata. */
  public static Payload request(ByteBufAllocator alloc, String route, String json) {
    return ByteBufPayload.create(ByteBufUtil.writeUtf8(alloc, json), RouteMetadata.encode(alloc, route));
  }

  /** Writes (without flushing) one frame with its length before it. */
  public static void write(ChannelHandlerContext ctx, ByteBuf frame) {
    ctx.write(FrameLengthCodec.encode(ctx.alloc(), frame.readableBytes(), frame));
  }
}
