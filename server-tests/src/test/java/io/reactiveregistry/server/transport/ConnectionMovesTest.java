package io.reactiveregistry.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.MoveRequest;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Which connections rebalancing asks to move: the newest first, but none that opened less than
 * {@link ConnectionMoves#SETTLE} ago (its client may still be registering on it); a stopping
 * member asks every one.
 */
class ConnectionMovesTest {
  private static final MoveRequest REBALANCE = new MoveRequest("rebalancing", List.of("127.0.0.1:7170"));

  /** A client's side of a connection that counts the move requests sent to it. */
  private static final class Client implements RSocket {
    final AtomicInteger asked = new AtomicInteger();
    final AtomicBoolean disposed = new AtomicBoolean();
    final Sinks.Empty<Void> closed = Sinks.empty();

    @Override
    public Mono<Void> fireAndForget(Payload payload) {
      payload.release();
      asked.incrementAndGet();
      return Mono.empty();
    }

    @Override
    public void dispose() {
      disposed.set(true);
      closed.tryEmitEmpty();
    }

    @Override
    public boolean isDisposed() {
      return disposed.get();
    }

    @Override
    public Mono<Void> onClose() {
      return closed.asMono();
    }
  }

  @Test
  void rebalancingAsksTheNewestSettledConnectionAndLeavesOneThatJustOpenedUntilItHasSettled() {
    AtomicLong now = new AtomicLong(0);
    ConnectionMoves moves = new ConnectionMoves(now::get);
    Client older = new Client();
    Client newer = new Client();
    Client justOpened = new Client();
    moves.add(1, "older", older, () -> 1, null);
    now.addAndGet(Duration.ofMillis(100).toNanos());
    moves.add(2, "newer", newer, () -> 1, null);
    now.addAndGet(ConnectionMoves.SETTLE.toNanos());
    moves.add(3, "just-opened", justOpened, () -> 1, null);
    now.addAndGet(Duration.ofMillis(16).toNanos());

    assertThat(moves.move(1, REBALANCE)).isEqualTo(1);
    assertThat(newer.asked).as("the newest of those settled").hasValue(1);
    assertThat(justOpened.asked).as("opened 16 ms ago").hasValue(0);
    assertThat(older.asked).hasValue(0);

    assertThat(moves.move(5, REBALANCE)).as("only the older one is left that has settled").isEqualTo(1);
    assertThat(justOpened.asked).hasValue(0);

    now.addAndGet(ConnectionMoves.SETTLE.toNanos());
    assertThat(moves.move(5, REBALANCE)).as("once it has settled").isEqualTo(1);
    assertThat(justOpened.asked).hasValue(1);
    assertThat(moves.stayed()).isZero();
  }

  @Test
  void aStoppingMemberAsksEveryConnectionHoweverNew() {
    AtomicLong now = new AtomicLong(0);
    ConnectionMoves moves = new ConnectionMoves(now::get);
    Client justOpened = new Client();
    moves.add(1, "just-opened", justOpened, () -> 0, null);

    moves.moveAll(new MoveRequest("member n1 is stopping", List.of("127.0.0.1:7170")), Duration.ofSeconds(5))
        .subscribe();

    assertThat(justOpened.asked).hasValue(1);
  }
}
