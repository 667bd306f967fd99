package io.reactiveregistry.loadtest.engine;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameLengthCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.KeepAliveFrameCodec;
import io.rsocket.frame.PayloadFrameCodec;
import io.rsocket.frame.RequestStreamFrameCodec;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.util.ByteBufPayload;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.resources.LoopResources;

/**
 * One request-stream read at the frame level, for subscribers that only count and time what
 * arrives: a plain Netty connection speaking just the RSocket a held stream needs (SETUP, one
 * REQUEST_STREAM, KEEPALIVE both ways), each PAYLOAD's data handed to a {@link Listener} on the
 * event loop. No RSocket state machine, no reactive operators per frame, no JSON: with the full
 * RSocket client the fan-out's subscribers cost the generator about twice the server's CPU, and on
 * two shared cores the benchmark then measured the generator (issue 40, item 2). The frames are
 * written and read with rsocket-java's own frame codecs.
 */
public final class LeanStream {
  /** Told each payload's data, valid only during the call, and when its frame was read. */
  @FunctionalInterface
  public interface Listener {
    void onData(ByteBuf data, long receivedNanos);
  }

  /** The client's KEEPALIVE period, and how long the server may go unheard before this side gives up. */
  private static final int KEEPALIVE_MS = 20_000;
  private static final int MAX_LIFETIME_MS = 90_000;
  private static final int STREAM_ID = 1;

  private LeanStream() {}

  /**
   * One event loop per core, shared by every lean stream of the process, its threads daemons; the
   * native transport where Reactor Netty finds it (epoll here), as the registry's own loops.
   */
  private static final class Loops {
    static final LoopResources RESOURCES = LoopResources.create("lean-stream",
        Runtime.getRuntime().availableProcessors(), true);
    static final EventLoopGroup GROUP = RESOURCES.onClient(true);
    static final Class<? extends Channel> CHANNEL = RESOURCES.onChannelClass(SocketChannel.class, GROUP);
  }

  /**
   * Connects to {@code endpoint}, sends {@code setup} (released here) and a REQUEST_STREAM of
   * {@code route} with {@code body}, and hands every payload to {@code listener} until {@code hold}
   * has passed since the connection opened; then closes it and completes. Errors when the
   * connection fails, the server answers with an ERROR frame, or closes the connection first; an
   * early end of the stream (COMPLETE) completes, as a taken stream would.
   */
  public static Mono<Void> hold(Target.Endpoint endpoint, SslContext tls, Payload setup, String route, String body,
      Duration hold, Listener listener) {
    return Mono.create(sink -> {
      Bootstrap bootstrap = new Bootstrap().group(Loops.GROUP)
          .channel(Loops.CHANNEL)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
              if (tls != null) {
                channel.pipeline().addLast(tls.newHandler(channel.alloc(), endpoint.host(), endpoint.port()));
              }
              channel.pipeline().addLast(
                  new LengthFieldBasedFrameDecoder(FrameLengthCodec.FRAME_LENGTH_MASK, 0,
                      FrameLengthCodec.FRAME_LENGTH_SIZE, 0, FrameLengthCodec.FRAME_LENGTH_SIZE),
                  new Frames(sink, setup, route, body, hold, listener));
            }
          });
      ChannelFuture connecting = bootstrap.connect(endpoint.host(), endpoint.port());
      connecting.addListener(done -> {
        if (!done.isSuccess()) {
          setup.release();
          sink.error(done.cause());
        }
      });
      sink.onCancel(() -> connecting.channel().close());
    });
  }

  /** The connection's side of the stream: writes the opening frames, reads the rest. */
  private static final class Frames extends ChannelInboundHandlerAdapter {
    private final MonoSink<Void> sink;
    private final Payload setup;
    private final String route;
    private final String body;
    private final Duration hold;
    private final Listener listener;
    private boolean ended;
    private ScheduledFuture<?> keepAlive;

    Frames(MonoSink<Void> sink, Payload setup, String route, String body, Duration hold, Listener listener) {
      this.sink = sink;
      this.setup = setup;
      this.route = route;
      this.body = body;
      this.hold = hold;
      this.listener = listener;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      try {
        write(ctx, SetupFrameCodec.encode(ctx.alloc(), false, KEEPALIVE_MS, MAX_LIFETIME_MS,
            Protocol.METADATA_MIME_TYPE, Protocol.DATA_MIME_TYPE, setup));
      } finally {
        setup.release();
      }
      Payload request = ByteBufPayload.create(ByteBufUtil.writeUtf8(ctx.alloc(), body),
          RouteMetadata.encode(ctx.alloc(), route));
      write(ctx, RequestStreamFrameCodec.encodeReleasingPayload(ctx.alloc(), STREAM_ID, Long.MAX_VALUE, request));
      ctx.flush();
      // The server closes a connection it has not heard a KEEPALIVE on for the lifetime.
      keepAlive = ctx.executor().scheduleAtFixedRate(() -> {
        write(ctx, KeepAliveFrameCodec.encode(ctx.alloc(), true, 0, null));
        ctx.flush();
      }, KEEPALIVE_MS, KEEPALIVE_MS, TimeUnit.MILLISECONDS);
      ctx.executor().schedule(() -> end(ctx, null), hold.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      ByteBuf frame = (ByteBuf) message;
      try {
        read(ctx, frame);
      } finally {
        frame.release();
      }
    }

    private void read(ChannelHandlerContext ctx, ByteBuf frame) {
      FrameType type = FrameHeaderCodec.frameType(frame);
      switch (type) {
        case NEXT, NEXT_COMPLETE -> {
          if (FrameHeaderCodec.hasFollows(frame)) {
            end(ctx, new IllegalStateException("a fragmented frame arrived; a lean stream reads whole frames only"));
            return;
          }
          if (!ended) {
            listener.onData(PayloadFrameCodec.data(frame), System.nanoTime());
          }
          if (type == FrameType.NEXT_COMPLETE) {
            end(ctx, null);
          }
        }
        case COMPLETE -> end(ctx, null);
        case ERROR -> end(ctx, new IllegalStateException("the server answered with an error (code 0x"
            + Integer.toHexString(ErrorFrameCodec.errorCode(frame)) + "): " + ErrorFrameCodec.dataUtf8(frame)));
        case KEEPALIVE -> {
          if (KeepAliveFrameCodec.respondFlag(frame)) {
            write(ctx, KeepAliveFrameCodec.encode(ctx.alloc(), false, 0, null));
            ctx.flush();
          }
        }
        default -> { } // LEASE, METADATA_PUSH, REQUEST_N on another stream: nothing a subscriber needs
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      end(ctx, new IllegalStateException("the server closed the connection before the stream's hold ended"));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      end(ctx, cause);
    }

    private void end(ChannelHandlerContext ctx, Throwable error) {
      if (ended) {
        return;
      }
      ended = true;
      if (keepAlive != null) {
        keepAlive.cancel(false);
      }
      ctx.close();
      if (error == null) {
        sink.success();
      } else {
        sink.error(error);
      }
    }

    private static void write(ChannelHandlerContext ctx, ByteBuf frame) {
      ctx.write(FrameLengthCodec.encode(ctx.alloc(), frame.readableBytes(), frame));
    }
  }
}
