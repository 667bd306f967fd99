package io.reactiveregistry.server.admission;

import io.micrometer.core.instrument.Counter;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One port's count of open connections, in all and by remote address. {@link #admit} is called as
 * a connection is accepted: within both limits the connection is counted until it closes;
 * otherwise it is refused (the caller closes it), counted in {@code registry_connections_refused}
 * and nothing is held for it.
 */
public final class ConnectionDoor {
  /**
   * @param maxConnections connections the port holds at once
   * @param maxPerAddress connections one remote address may hold on the port at once
   */
  public record Limits(int maxConnections, int maxPerAddress) {
    public Limits {
      if (maxConnections < 1 || maxPerAddress < 1) {
        throw new IllegalArgumentException("connection limits must be at least 1: " + maxConnections + ", "
            + maxPerAddress);
      }
    }
  }

  private final String port;
  private final Limits limits;
  private final Counter refusedAtPortLimit;
  private final Counter refusedAtAddressLimit;
  private final AtomicInteger open = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> openByAddress = new ConcurrentHashMap<>();

  /**
   * @param port the port's name in messages and meters: {@code tcp}, {@code websocket}, {@code http}
   */
  public ConnectionDoor(String port, Limits limits, Counter refusedAtPortLimit, Counter refusedAtAddressLimit) {
    this.port = port;
    this.limits = limits;
    this.refusedAtPortLimit = refusedAtPortLimit;
    this.refusedAtAddressLimit = refusedAtAddressLimit;
  }

  /**
   * Counts {@code channel} in, until it closes, and returns null; or, past a limit, returns why it
   * is refused, having counted nothing but the refusal.
   */
  public String admit(Channel channel) {
    if (open.incrementAndGet() > limits.maxConnections()) {
      open.decrementAndGet();
      refusedAtPortLimit.increment();
      return "the server holds its limit of " + limits.maxConnections() + " connections on its " + port + " port";
    }
    InetAddress address = addressOf(channel.remoteAddress());
    if (address != null && !countIn(address)) {
      open.decrementAndGet();
      refusedAtAddressLimit.increment();
      return address.getHostAddress() + " holds its limit of " + limits.maxPerAddress() + " connections on the "
          + port + " port";
    }
    channel.closeFuture().addListener(closed -> {
      open.decrementAndGet();
      if (address != null) {
        openByAddress.computeIfPresent(address, (key, count) -> count == 1 ? null : count - 1);
      }
    });
    return null;
  }

  public int openConnections() {
    return open.get();
  }

  private boolean countIn(InetAddress address) {
    boolean[] admitted = {false};
    openByAddress.compute(address, (key, count) -> {
      int now = count == null ? 0 : count;
      if (now >= limits.maxPerAddress()) {
        return count;
      }
      admitted[0] = true;
      return now + 1;
    });
    return admitted[0];
  }

  private static InetAddress addressOf(SocketAddress remote) {
    return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
  }
}
