package io.reactiveregistry.server.security;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Slows down guessing: an address that presents {@code max} tokens that are not valid within a
 * window has every token it presents refused, valid or not, until that window ends. Windows are
 * fixed, starting at an address's first failure, and timed by the clock the server is given.
 *
 * <p>At most {@value #MAX_ADDRESSES} addresses are tracked at once; past that, expired windows are
 * dropped, and an address that finds the table still full is not tracked (a flood from that many
 * addresses is the connection limits' to stop, not this table's).
 */
public final class FailedAuthentications {
  static final int MAX_ADDRESSES = 100_000;

  /** Failures of one address since {@code startMillis}. */
  private record Window(long startMillis, int failures) {}

  private final ConcurrentHashMap<InetAddress, Window> windows = new ConcurrentHashMap<>();
  private final int max;
  private final long windowMillis;
  private final InstantSource clock;

  public FailedAuthentications(int max, Duration window, InstantSource clock) {
    if (max < 1) {
      throw new IllegalArgumentException("max failed authentications must be at least 1");
    }
    this.max = max;
    this.windowMillis = window.toMillis();
    this.clock = clock;
  }

  /** How long tokens from {@code remote} are still refused; zero when they are checked. */
  public Duration blockedFor(@Nullable SocketAddress remote) {
    InetAddress address = address(remote);
    Window window = address == null ? null : windows.get(address);
    if (window == null || window.failures() < max) {
      return Duration.ZERO;
    }
    long left = window.startMillis() + windowMillis - clock.millis();
    return left > 0 ? Duration.ofMillis(left) : Duration.ZERO;
  }

  /** Counts a token from {@code remote} that was not valid. */
  public void failed(@Nullable SocketAddress remote) {
    InetAddress address = address(remote);
    if (address == null) {
      return;
    }
    long now = clock.millis();
    if (windows.size() >= MAX_ADDRESSES && !windows.containsKey(address)) {
      windows.values().removeIf(window -> window.startMillis() + windowMillis <= now);
      if (windows.size() >= MAX_ADDRESSES) {
        return;
      }
    }
    windows.compute(address, (key, window) -> window == null || window.startMillis() + windowMillis <= now
        ? new Window(now, 1) : new Window(window.startMillis(), window.failures() + 1));
  }

  private static @Nullable InetAddress address(@Nullable SocketAddress remote) {
    return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
  }
}
