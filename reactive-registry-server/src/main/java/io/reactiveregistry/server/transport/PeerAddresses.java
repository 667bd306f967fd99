package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.exceptions.ConnectionCloseException;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.plugins.DuplexConnectionInterceptor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Hands a connection's remote address to the {@link io.rsocket.SocketAcceptor}, which RSocket-Java
 * does not give it. The raw connection is wrapped; when its SETUP frame is read, the address is
 * left in a thread-local that the acceptor takes: RSocket calls the acceptor synchronously on the
 * same event-loop thread while handling that frame.
 */
final class PeerAddresses implements DuplexConnectionInterceptor {
  private static final ThreadLocal<SocketAddress> SETTING_UP = new ThreadLocal<>();

  /** Every live connection, so that a shutdown can close each with a reason. */
  private final Set<DuplexConnection> live = ConcurrentHashMap.newKeySet();

  @Override
  public DuplexConnection apply(Type type, DuplexConnection connection) {
    if (type != Type.SOURCE) {
      return connection;
    }
    Tagging tagged = new Tagging(connection);
    live.add(tagged);
    connection.onClose().doFinally(signal -> live.remove(tagged)).subscribe(null, error -> { });
    return tagged;
  }

  /**
   * Sends each connection an RSocket {@code CONNECTION_CLOSE} error with the reason, then closes it,
   * but for those at the {@code except} addresses (closed by the caller in its own way). Returns,
   * for each connection it closes, when that one is closed (its frame sent).
   */
  List<Mono<Void>> closeAll(String reason, Set<SocketAddress> except) {
    List<Mono<Void>> closed = new ArrayList<>();
    for (DuplexConnection connection : live) {
      if (!except.contains(connection.remoteAddress())) {
        connection.sendErrorAndClose(new ConnectionCloseException(reason));
        closed.add(connection.onClose().onErrorResume(e -> Mono.empty()));
      }
    }
    return closed;
  }

  /** The address of the connection whose SETUP is being handled on this thread; null if unknown. */
  static SocketAddress take() {
    SocketAddress address = SETTING_UP.get();
    SETTING_UP.remove();
    return address;
  }

  /** {@code host:port}, for people. */
  static String label(SocketAddress address) {
    if (address instanceof InetSocketAddress inet) {
      return inet.getHostString() + ":" + inet.getPort();
    }
    return address == null ? "unknown" : address.toString();
  }

  private static final class Tagging implements DuplexConnection {
    private final DuplexConnection delegate;

    Tagging(DuplexConnection delegate) {
      this.delegate = delegate;
    }

    @Override
    public Flux<ByteBuf> receive() {
      return delegate.receive().doOnNext(frame -> {
        if (FrameHeaderCodec.frameType(frame) == FrameType.SETUP) {
          SETTING_UP.set(delegate.remoteAddress());
        }
      });
    }

    @Override
    public void sendFrame(int streamId, ByteBuf frame) {
      delegate.sendFrame(streamId, frame);
    }

    @Override
    public void sendErrorAndClose(RSocketErrorException errorException) {
      delegate.sendErrorAndClose(errorException);
    }

    @Override
    public ByteBufAllocator alloc() {
      return delegate.alloc();
    }

    @Override
    public SocketAddress remoteAddress() {
      return delegate.remoteAddress();
    }

    @Override
    public Mono<Void> onClose() {
      return delegate.onClose();
    }

    @Override
    public void dispose() {
      delegate.dispose();
    }

    @Override
    public boolean isDisposed() {
      return delegate.isDisposed();
    }

    @Override
    public double availability() {
      return delegate.availability();
    }
  }
}
