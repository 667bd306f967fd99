package io.reactiveregistry.loadtest.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.reactiveregistry.loadtest.engine.LeanFrames;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.PayloadFrameCodec;
import io.rsocket.frame.RequestFireAndForgetFrameCodec;
import io.rsocket.frame.RequestResponseFrameCodec;
import io.rsocket.frame.RequestStreamFrameCodec;
import io.rsocket.util.DefaultPayload;
import java.util.BitSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One member of a fleet in a lean reconnect storm: it does what a registry client does through a
 * restart — registers its instance, watches the fleet's service (coalescing, as the Java client's
 * watch asks), heartbeats, and when its connection closes connects again with the client's backoff
 * and does it all again — on a plain Netty connection, reading frames with rsocket-java's frame
 * codecs and the view from the events' bytes (which instances, not their fields). A thousand full
 * clients in one JVM cost the two cores as much as the restarted server (RESULTS.md, issue 17),
 * so their storm measured the generator as much as the server (issue 40, item 2).
 *
 * <p>The fleet's instances are {@code 127.0.a.b:8080}, member {@code i} at {@code a = i / 250, b =
 * i % 250 + 1}, each connecting from its instance's address as from its own machine; a view is the
 * set of members whose instance it shows.
 */
final class LeanStormClient {
  private static final long HEARTBEAT_MS = 5_000;
  private static final long FIRST_BACKOFF_MS = 100;
  private static final long MAX_BACKOFF_MS = 2_000;
  private static final int REGISTER = 1;
  private static final int WATCH = 3;
  private static final int HEARTBEAT = 5;
  /** The first ERROR frame any client of the storm received, for its report. */
  static volatile String firstError;

  private final int index;
  private final String host;
  private final int port;
  private final String service;
  private final AtomicInteger errors;
  private volatile boolean registered;
  /** Members in the view since the last SNAPSHOT of this connection's watch; -1 before one. */
  private volatile int viewSize = -1;
  private volatile boolean closed;
  private volatile Channel channel;
  private int attempts;

  LeanStormClient(int index, String host, int port, String service, AtomicInteger errors) {
    this.index = index;
    this.host = host;
    this.port = port;
    this.service = service;
    this.errors = errors;
  }

  static String ip(int member) {
    return "127.0." + (member / 250) + "." + (member % 250 + 1);
  }

  /** Whether its registration was answered on the connection it has now. */
  boolean registered() {
    return registered;
  }

  /** Members its view shows on the connection it has now; -1 before the view's first SNAPSHOT. */
  int viewSize() {
    return viewSize;
  }

  void connect() {
    if (closed) {
      return;
    }
    LeanFrames.connect(host, port, null, new Session(), ip(index)).addListener(done -> {
      if (!done.isSuccess()) {
        retryLater();
      }
    });
  }

  /** Closes its connection and stops connecting again. */
  void close() {
    closed = true;
    Channel open = channel;
    if (open != null) {
      open.close();
    }
  }

  /** The Java client's backoff: 100 ms doubling to 2 s, with up to half of it as jitter. */
  private void retryLater() {
    long backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS << Math.min(attempts++, 5));
    long jittered = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
    LeanFrames.loops().schedule(this::connect, jittered, TimeUnit.MILLISECONDS);
  }

  /** One connection's life: the opening frames, the answers and events, and the end. */
  private final class Session extends SimpleChannelInboundHandler<ByteBuf> {
    private final BitSet view = new BitSet();
    private ScheduledFuture<?> keepAlive;
    private ScheduledFuture<?> heartbeats;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      attempts = 0;
      channel = ctx.channel();
      keepAlive = LeanFrames.open(ctx, DefaultPayload.create("{\"client\":\"fleet-" + index + "\"}"));
      LeanFrames.write(ctx, RequestResponseFrameCodec.encodeReleasingPayload(ctx.alloc(), REGISTER,
          LeanFrames.request(ctx.alloc(), "instance.register", "{\"service\":\"" + service
              + "\",\"instance\":{\"ip\":\"" + ip(index) + "\",\"port\":8080}}")));
      LeanFrames.write(ctx, RequestStreamFrameCodec.encodeReleasingPayload(ctx.alloc(), WATCH, Long.MAX_VALUE,
          LeanFrames.request(ctx.alloc(), "service.subscribe", "{\"service\":\"" + service + "\",\"coalesce\":true}")));
      ctx.flush();
      // {} heartbeats every instance of the connection: the one this member registered.
      heartbeats = ctx.executor().scheduleAtFixedRate(() -> {
        LeanFrames.write(ctx, RequestFireAndForgetFrameCodec.encodeReleasingPayload(ctx.alloc(), HEARTBEAT,
            LeanFrames.request(ctx.alloc(), "instance.heartbeat", "{}")));
        ctx.flush();
      }, HEARTBEAT_MS, HEARTBEAT_MS, TimeUnit.MILLISECONDS);
    }

    /** A whole frame, released after this returns. */
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      int stream = FrameHeaderCodec.streamId(frame);
      switch (FrameHeaderCodec.frameType(frame)) {
        case NEXT, NEXT_COMPLETE -> {
          if (stream == REGISTER) {
            registered = true;
          } else if (stream == WATCH) {
            ViewEvents.apply(PayloadFrameCodec.data(frame), view);
            viewSize = view.cardinality();
          }
        }
        case ERROR -> {
          if (errors.getAndIncrement() == 0) {
            firstError = "stream " + stream + ": " + ErrorFrameCodec.dataUtf8(frame);
          }
          ctx.close(); // a refused registration or watch, or the server going: connect again, as the client would
        }
        case KEEPALIVE -> LeanFrames.keepAlive(ctx, frame);
        default -> { } // the watch's COMPLETE comes only with the connection's end
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      registered = false;
      viewSize = -1;
      channel = null;
      keepAlive.cancel(false);
      heartbeats.cancel(false);
      retryLater();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
