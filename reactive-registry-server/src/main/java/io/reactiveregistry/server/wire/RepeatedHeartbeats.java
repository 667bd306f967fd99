package io.reactiveregistry.server.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.Owner;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The heartbeats one connection sends, each body decoded once. A client sends the same bytes for
 * an instance every interval, and decoding them (JSON, then every rule an instance must meet) was
 * most of the registry's own part of a lone heartbeat's cost. A body this connection sent before is
 * matched byte for byte and its command used again: commands are immutable, and decoding is a pure
 * function of the bytes and the owner, which is the connection's, so the command is the one
 * decoding would give. A body that breaks a rule is never kept: it is refused every time.
 *
 * <p>Kept by content, at most {@value #KEPT_BYTES} bytes of bodies a connection (a client's
 * heartbeats for some hundred instances; a full table starts over, so a client with more has them
 * decoded again, as before): what a connection can make the server hold stays small. Safe to share
 * between threads: every HTTP caller shares one session.
 */
public final class RepeatedHeartbeats {
  private static final int KEPT_BYTES = 32 * 1024;
  /** A body larger than this (an instance with much metadata) is decoded every time. */
  private static final int LARGEST_KEPT = 2048;

  private record Kept(Owner owner, Command command) {}

  private final Map<Body, Kept> kept = new ConcurrentHashMap<>();
  private final AtomicInteger keptBytes = new AtomicInteger();

  /** {@code instance.heartbeat}'s command for {@code body}, as {@link CommandDecoder#decode} gives it. */
  public Command decode(Owner owner, ByteBuf body) {
    if (body.readableBytes() > LARGEST_KEPT) {
      return CommandDecoder.decode(Route.INSTANCE_HEARTBEAT, owner, body);
    }
    Body arrived = new Body(body);
    Kept seen = kept.get(arrived);
    if (seen != null && seen.owner == owner) {
      return seen.command;
    }
    Body copy = new Body(Unpooled.wrappedBuffer(ByteBufUtil.getBytes(body)));
    Command command = CommandDecoder.decode(Route.INSTANCE_HEARTBEAT, owner, body);
    if (keptBytes.addAndGet(copy.bytes.readableBytes()) > KEPT_BYTES) {
      kept.clear();
      keptBytes.set(copy.bytes.readableBytes());
    }
    kept.put(copy, new Kept(owner, command));
    return command;
  }

  /**
   * A body's bytes, compared by content. The one looked up is a view of the arriving frame; the
   * one kept, a copy on the heap.
   */
  private static final class Body {
    private final ByteBuf bytes;
    private final int hash;

    Body(ByteBuf bytes) {
      this.bytes = bytes;
      // Netty's hash of nearby bodies (ports one apart) differs in few bits: spread it.
      this.hash = ByteBufUtil.hashCode(bytes) * 0x9E3779B9;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Body that && that.hash == hash && ByteBufUtil.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
