package io.reactiveregistry.loadtest.engine;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.rsocket.Payload;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.PayloadFrameCodec;
import io.rsocket.frame.RequestStreamFrameCodec;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * One request-stream read at the frame level, for subscribers that only count and time what
 * arrives: a lean connection ({@link LeanFrames}) holding one REQUEST_STREAM, each PAYLOAD's data
 * handed to a {@link Listener} on the event loop. No RSocket state machine, no reactive operators
 * per frame, no JSON: with the full RSocket client the fan-out's subscribers cost the generator
 * about twice the server's CPU, and on two shared cores the benchmark then measured the generator
 * (issue 40, item 2).
 */
public final class LeanStream {
  /** Told each payload's data, valid only during the call, and when its frame was read. */
  @FunctionalInterface
  public interface Listener {
    void onData(ByteBuf data, long receivedNanos);
  }

  private static final int STREAM_ID = 1;

  private LeanStream() {}

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
      ChannelFuture connecting = LeanFrames.connect(endpoint.host(), endpoint.port(), tls,
          new Frames(sink, setup, route, body, hold, listener));
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
  private static final class Frames extends SimpleChannelInboundHandler<ByteBuf> {
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
      keepAlive = LeanFrames.open(ctx, setup);
      LeanFrames.write(ctx, RequestStreamFrameCodec.encodeReleasingPayload(ctx.alloc(), STREAM_ID, Long.MAX_VALUE,
          LeanFrames.request(ctx.alloc(), route, body)));
      ctx.flush();
      ctx.executor().schedule(() -> end(ctx, null), hold.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** A whole frame, released after this returns. */
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
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
        case KEEPALIVE -> LeanFrames.keepAlive(ctx, frame);
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
  }
}
