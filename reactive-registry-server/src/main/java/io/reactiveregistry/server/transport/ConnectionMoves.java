package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.MoveRequest;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The connections whose clients honour {@code connection.move} (they said so in their setup
 * data), and asking them to move: all of them when this member stops, a few at a time when it
 * holds more than its share. A client asked to move connects to another member and registers
 * again there; this member closes the old connection once it owns nothing any more (each instance
 * taken over: the other member's later registration has reached this one), so that the close
 * releases nothing and no view anywhere loses an instance. A connection is asked once.
 */
final class ConnectionMoves {
  private static final Logger log = LoggerFactory.getLogger(ConnectionMoves.class);

  /**
   * One movable connection: the client's side of it (where the request goes), when it opened, and
   * the zone its client gave (null: none).
   */
  private record Movable(long id, String label, RSocket client, IntSupplier owned, long openedAtNanos,
      AtomicBoolean asked, @Nullable String zone) {}

  /** How often connections asked to move are looked at, to close those that own nothing any more. */
  private static final Duration CHECK = Duration.ofMillis(20);

  /**
   * How young a connection is taken to be still registering. Its client registers on it as soon as
   * it connects (after a move or a reconnect); asked to move then, the connection owned nothing at
   * the first look and was closed, while a registration already on its way landed on it just
   * before the close and was released by it, so that every view saw the instance removed and added
   * again (RollingRestartTest on a loaded machine: a client that had just moved was asked to move
   * on 16 ms later). So rebalancing does not ask a connection younger than this, and a connection
   * that owns nothing is closed as taken over only once it is this old (a stopping member asks
   * every connection, the youngest too, and closes those within a second of their opening).
   */
  static final Duration SETTLE = Duration.ofSeconds(1);

  private final Map<Long, Movable> movable = new ConcurrentHashMap<>();
  private final AtomicBoolean checking = new AtomicBoolean();
  private final LongSupplier nanoTime;
  private final Scheduler checks;

  ConnectionMoves() {
    this(System::nanoTime, Schedulers.parallel());
  }

  /**
   * With the monotonic clock {@code nanoTime} (nanoseconds) that dates the connections, and the
   * scheduler that runs the looks at connections asked to move.
   */
  ConnectionMoves(LongSupplier nanoTime, Scheduler checks) {
    this.nanoTime = nanoTime;
    this.checks = checks;
  }

  /** A connection whose client honours moves; {@code owned} counts the instances it owns now. */
  void add(long id, String label, RSocket client, IntSupplier owned, @Nullable String zone) {
    movable.put(id, new Movable(id, label, client, owned, nanoTime.getAsLong(), new AtomicBoolean(), zone));
  }

  /** The zones the clients not yet asked to move gave (not counting those that gave none). */
  Set<String> clientZones() {
    Set<String> zones = new HashSet<>();
    for (Movable connection : movable.values()) {
      if (connection.zone() != null && !connection.asked().get()) {
        zones.add(connection.zone());
      }
    }
    return zones;
  }

  void remove(long id) {
    movable.remove(id);
  }

  /** Movable connections not yet asked to move. */
  int stayed() {
    return (int) movable.values().stream().filter(connection -> !connection.asked().get()).count();
  }

  /**
   * Asks every movable connection to move; completes when each has closed, or after
   * {@code timeout}, with how many are still open.
   */
  Mono<Integer> moveAll(MoveRequest request, Duration timeout) {
    return Mono.defer(() -> {
      List<Movable> asked = new ArrayList<>();
      for (Movable connection : movable.values()) {
        if (ask(connection, request)) {
          asked.add(connection);
        }
      }
      if (asked.isEmpty()) {
        return Mono.just(0);
      }
      log.info("asked {} connection(s) to move to {} ({})", asked.size(), request.members(), request.reason());
      return Flux.fromIterable(asked)
          .flatMap(connection -> connection.client().onClose().onErrorResume(error -> Mono.empty()), asked.size())
          .then(Mono.fromSupplier(() -> 0))
          .timeout(timeout, Mono.fromSupplier(() -> (int) asked.stream()
              .filter(connection -> movable.containsKey(connection.id())).count()));
    });
  }

  /**
   * Asks up to {@code count} connections not asked before to move, the most recently opened
   * first (the oldest have proven they stay; a new one has the least to redo), among those open
   * for at least {@link #SETTLE}: how many were asked.
   */
  int move(int count, MoveRequest request) {
    return move(count, request, null);
  }

  /** The same, among the clients that gave {@code zone} (null: any client). */
  int move(int count, MoveRequest request, @Nullable String zone) {
    long now = nanoTime.getAsLong();
    List<Movable> candidates = movable.values().stream()
        .filter(connection -> !connection.asked().get())
        .filter(connection -> settled(connection, now))
        .filter(connection -> zone == null || zone.equals(connection.zone()))
        .sorted(Comparator.comparingLong(Movable::openedAtNanos).reversed())
        .limit(Math.max(0, count))
        .toList();
    int asked = 0;
    for (Movable connection : candidates) {
      if (ask(connection, request)) {
        asked++;
      }
    }
    return asked;
  }

  private boolean ask(Movable connection, MoveRequest request) {
    if (!connection.asked().compareAndSet(false, true) || connection.client().isDisposed()) {
      return false;
    }
    closeWhenTakenOver();
    byte[] body = JsonCodec.json().encode(request);
    connection.client()
        .fireAndForget(ByteBufPayload.create(Unpooled.wrappedBuffer(body),
            RouteMetadata.encode(ByteBufAllocator.DEFAULT, Protocol.CONNECTION_MOVE_ROUTE)))
        .subscribe(null, error -> log.debug("could not ask {} to move: {}", connection.label(), error.toString()));
    return true;
  }

  /** Open for at least {@link #SETTLE} at {@code now}. */
  private static boolean settled(Movable connection, long now) {
    return now - connection.openedAtNanos() >= SETTLE.toNanos();
  }

  /**
   * Until every connection asked to move has closed: closes those that own nothing any more. (A
   * connection that owned nothing to begin with, a subscriber's, closes at the first look once it
   * has settled; its client is connecting elsewhere meanwhile.)
   */
  private void closeWhenTakenOver() {
    if (!checking.compareAndSet(false, true)) {
      return;
    }
    Flux.interval(CHECK, CHECK, checks)
        .map(tick -> closeTakenOver())
        .takeUntil(left -> left == 0)
        .doFinally(signal -> {
          checking.set(false);
          if (closeTakenOver() > 0) { // asked meanwhile
            closeWhenTakenOver();
          }
        })
        .subscribe(null, error -> log.warn("stopped closing moved connections", error));
  }

  /** Closes the settled asked connections that own nothing: how many asked ones are still open. */
  private int closeTakenOver() {
    int left = 0;
    long now = nanoTime.getAsLong();
    for (Movable connection : movable.values()) {
      if (connection.asked().get() && !connection.client().isDisposed()) {
        if (connection.owned().getAsInt() == 0 && settled(connection, now)) {
          connection.client().dispose();
        } else {
          left++;
        }
      }
    }
    return left;
  }
}
