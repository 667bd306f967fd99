package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.process.FatalErrors;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.frame.CancelFrameCodec;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's frames, between the transport's decoder and RSocket-Java, for what RSocket-Java
 * does not bound or gets wrong:
 * <ul>
 *   <li>a frame of a type it does not know with the IGNORE flag must be ignored (the RSocket
 *       specification), where RSocket-Java stops reading the connection;
 *   <li>a frame only a server may send (LEASE) makes it fail inside (a {@code NullPointerException});
 *   <li>a frame longer than the TCP decoder accepts is skipped by the decoder, which leaves the
 *       request in it unanswered;
 *   <li>fragments of unfinished requests are buffered without a total bound: here they count
 *       against a budget per connection and one for the whole server ({@link FragmentBudget});
 *       past it the request is refused with {@code LIMIT_EXCEEDED} and its fragments dropped;
 *   <li>KEEPALIVE frames asking for an answer are answered at any rate: here at most
 *       {@value #KEEPALIVES_PER_SECOND} a second, the rest dropped unanswered.
 * </ul>
 * A connection that breaks the protocol gets a {@code CONNECTION_ERROR} that says why and is
 * closed alone (releasing what it owned). Runs on the connection's event loop, except
 * {@link #heldBytes()} and {@link #evict()}, which other connections call.
 */
final class InboundFrameFilter extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(InboundFrameFilter.class);
  /** Keepalive answers a connection may ask for per second; one a second is what the floor allows. */
  static final int KEEPALIVES_PER_SECOND = 10;
  private static final int HEADER_BYTES = 6;
  private static final int TYPE_SHIFT = 10;
  private static final int FLAG_IGNORE = 0x200;
  /** FOLLOWS on request and PAYLOAD frames; RESPOND on KEEPALIVE: the same bit. */
  private static final int FLAG_FOLLOWS = 0x80;
  private static final int FLAG_RESPOND = 0x80;

  private final Framing framing;
  private final int frameLimitBytes;
  private final long connectionBudgetBytes;
  private final FragmentBudget serverBudget;
  private final ServerMeters meters;
  /** Bytes of each unfinished fragmented request that RSocket-Java is reassembling, by stream. */
  private final Map<Integer, Long> unfinished = new HashMap<>();
  /** Streams refused mid-request whose remaining fragments are dropped. */
  private final Set<Integer> discarding = new HashSet<>();
  private final AtomicLong held = new AtomicLong();
  private final KeepAliveRate keepAlives = new KeepAliveRate(KEEPALIVES_PER_SECOND);
  private ChannelHandlerContext context;
  private boolean closing;

  InboundFrameFilter(Framing framing, int frameLimitBytes, long connectionBudgetBytes, FragmentBudget serverBudget,
      ServerMeters meters) {
    this.framing = framing;
    this.frameLimitBytes = frameLimitBytes;
    this.connectionBudgetBytes = connectionBudgetBytes;
    this.serverBudget = serverBudget;
    this.meters = meters;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.context = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (closing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    ByteBuf frame = framing.frameOf(msg);
    if (frame == null || frame.readableBytes() < HEADER_BYTES) {
      super.channelRead(ctx, msg);
      return;
    }
    int streamId = frame.getInt(frame.readerIndex()) & 0x7FFF_FFFF;
    int typeAndFlags = frame.getUnsignedShort(frame.readerIndex() + 4);
    int encodedType = typeAndFlags >>> TYPE_SHIFT;
    FrameType type = known(encodedType);
    if (type == null) {
      ReferenceCountUtil.release(msg);
      if ((typeAndFlags & FLAG_IGNORE) == 0) {
        refuse(ctx, "frame type " + encodedType + " is not known to this server and not marked IGNORE");
      } // else an extension this server does not know, marked as safe to ignore
      return;
    }
    boolean pass = switch (type) {
      case LEASE -> {
        ReferenceCountUtil.release(msg);
        refuse(ctx, type + " frames are sent by servers, not accepted from clients");
        yield false;
      }
      case KEEPALIVE -> (typeAndFlags & FLAG_RESPOND) == 0 || keepAliveAnswered(msg);
      case REQUEST_RESPONSE, REQUEST_FNF, REQUEST_STREAM, REQUEST_CHANNEL, PAYLOAD ->
          fragmentAdmitted(ctx, msg, streamId, (typeAndFlags & FLAG_FOLLOWS) != 0, frame.readableBytes());
      case CANCEL, ERROR -> {
        discarding.remove(streamId);
        releaseStream(streamId);
        yield true;
      }
      default -> true;
    };
    if (pass) {
      super.channelRead(ctx, msg);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (cause instanceof TooLongFrameException) {
      refuse(ctx, "a frame longer than " + frameLimitBytes + " bytes (" + cause.getMessage() + ")");
      return;
    }
    FatalErrors.check(cause);
    super.exceptionCaught(ctx, cause);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closing = true;
    releaseAll();
    super.channelInactive(ctx);
  }

  /** Bytes this connection holds in unfinished fragmented requests. */
  long heldBytes() {
    return held.get();
  }

  /** Called by another connection when the server's budget is full and this one holds the most. */
  void evict() {
    ChannelHandlerContext ctx = context;
    ctx.executor().execute(() -> {
      if (!closing) {
        refuse(ctx, "this connection held the most bytes of unfinished fragmented requests ("
            + held.get() + ") when the server's limit of " + serverBudget.limitBytes() + " was reached");
      }
    });
  }

  private boolean keepAliveAnswered(Object msg) {
    if (keepAlives.tryTake(System.nanoTime())) {
      return true;
    }
    ReferenceCountUtil.release(msg);
    meters.keepAliveDropped();
    return false;
  }

  /**
   * Whether a request or PAYLOAD frame goes on to RSocket-Java: a whole one always does; a fragment
   * only while its request stays within one frame's size, and one with more to come only within
   * both budgets. A refused request gets {@code LIMIT_EXCEEDED} and its remaining fragments are
   * dropped; the connection goes on.
   */
  private boolean fragmentAdmitted(ChannelHandlerContext ctx, Object msg, int streamId, boolean follows, int bytes) {
    if (discarding.contains(streamId)) {
      if (!follows) {
        discarding.remove(streamId);
      }
      ReferenceCountUtil.release(msg);
      return false;
    }
    long soFar = unfinished.getOrDefault(streamId, 0L);
    if (!follows && soFar == 0) {
      return true; // a whole frame: bounded by the decoder
    }
    // Past one frame's worth RSocket-Java would refuse the request itself, with a message that is
    // not the contract's JSON; so this refuses it first.
    String refusal = soFar + bytes > frameLimitBytes
        ? "a request reassembled from fragments may not exceed " + frameLimitBytes + " bytes"
        : follows ? reserve(bytes) : null;
    if (refusal == null) {
      if (follows) {
        unfinished.merge(streamId, (long) bytes, Long::sum);
      } else {
        releaseStream(streamId); // whole now: RSocket-Java holds one decoded request
      }
      return true;
    }
    ReferenceCountUtil.release(msg);
    if (soFar > 0) {
      // RSocket-Java holds the fragments so far; a CANCEL makes it let them go.
      releaseStream(streamId);
      ctx.fireChannelRead(framing.wrap(ctx.alloc(), CancelFrameCodec.encode(ctx.alloc(), streamId)));
    }
    if (follows) {
      discarding.add(streamId);
    }
    meters.error(ErrorCode.LIMIT_EXCEEDED);
    ErrorBody error = new ErrorBody(ErrorCode.LIMIT_EXCEEDED.name(), refusal);
    ctx.writeAndFlush(framing.wrap(ctx.alloc(), ErrorFrameCodec.encode(ctx.alloc(), streamId, ErrorMapping.toWire(error))));
    return false;
  }

  /** Null once {@code bytes} are counted against both budgets; otherwise why they are not. */
  private String reserve(int bytes) {
    if (held.get() + bytes > connectionBudgetBytes) {
      return "requests being reassembled from fragments would hold more than " + connectionBudgetBytes
          + " bytes on this connection (--max-fragment-bytes-per-connection)";
    }
    if (serverBudget.reserve(this, bytes)) {
      held.addAndGet(bytes);
      return null;
    }
    serverBudget.largestHolderOtherThan(this).ifPresent(InboundFrameFilter::evict);
    return "the server holds its limit of " + serverBudget.limitBytes()
        + " bytes of unfinished fragmented requests (--max-fragment-bytes); retry shortly";
  }

  private void releaseStream(int streamId) {
    Long bytes = unfinished.remove(streamId);
    if (bytes != null) {
      held.addAndGet(-bytes);
      serverBudget.release(this, bytes, unfinished.isEmpty());
    }
  }

  private void releaseAll() {
    for (Integer streamId : Set.copyOf(unfinished.keySet())) {
      releaseStream(streamId);
    }
    discarding.clear();
  }

  private static FrameType known(int encodedType) {
    try {
      return FrameType.fromEncodedType(encodedType);
    } catch (IllegalArgumentException unknown) {
      return null;
    }
  }

  private void refuse(ChannelHandlerContext ctx, String reason) {
    closing = true;
    releaseAll();
    log.warn("closing {}: {}", ctx.channel().remoteAddress(), reason);
    ctx.writeAndFlush(framing.wrap(ctx.alloc(),
            ErrorFrameCodec.encode(ctx.alloc(), 0, new ConnectionErrorException(reason))))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /** A token bucket: {@code perSecond} tokens a second, at most {@code perSecond} saved up. */
  private static final class KeepAliveRate {
    private final int perSecond;
    private double tokens;
    private long lastNanos = System.nanoTime();

    KeepAliveRate(int perSecond) {
      this.perSecond = perSecond;
      this.tokens = perSecond;
    }

    boolean tryTake(long nowNanos) {
      tokens = Math.min(perSecond, tokens + (nowNanos - lastNanos) * perSecond / 1e9);
      lastNanos = nowNanos;
      if (tokens < 1) {
        return false;
      }
      tokens -= 1;
      return true;
    }
  }
}
