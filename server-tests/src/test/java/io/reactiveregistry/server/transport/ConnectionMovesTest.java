package io.reactiveregistry.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.message.MoveRequest;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Which connections rebalancing asks to move: the newest first, but none that opened less than
 * {@link ConnectionMoves#SETTLE} ago (its client may still be registering on it); a stopping
 * member asks every one, and closes one that owns nothing only once it has settled. On virtual
 * time: the connections' ages and the looks at those asked to move run on one test scheduler.
 */
class ConnectionMovesTest {
  private static final MoveRequest REBALANCE = new MoveRequest("rebalancing", List.of("127.0.0.1:7170"));
  private static final MoveRequest STOPPING = new MoveRequest("member n1 is stopping", List.of("127.0.0.1:7170"));

  private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
  private final ConnectionMoves moves = new ConnectionMoves(() -> time.now(TimeUnit.NANOSECONDS), time);

  @AfterEach
  void dispose() {
    time.dispose();
  }

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
    Client older = new Client();
    Client newer = new Client();
    Client justOpened = new Client();
    moves.add(1, "older", older, () -> 1, null);
    time.advanceTimeBy(Duration.ofMillis(100));
    moves.add(2, "newer", newer, () -> 1, null);
    time.advanceTimeBy(ConnectionMoves.SETTLE);
    moves.add(3, "just-opened", justOpened, () -> 1, null);
    time.advanceTimeBy(Duration.ofMillis(16));

    assertThat(moves.move(1, REBALANCE)).isEqualTo(1);
    assertThat(newer.asked).as("the newest of those settled").hasValue(1);
    assertThat(justOpened.asked).as("opened 16 ms ago").hasValue(0);
    assertThat(older.asked).hasValue(0);

    assertThat(moves.move(5, REBALANCE)).as("only the older one is left that has settled").isEqualTo(1);
    assertThat(justOpened.asked).hasValue(0);

    time.advanceTimeBy(ConnectionMoves.SETTLE);
    assertThat(moves.move(5, REBALANCE)).as("once it has settled").isEqualTo(1);
    assertThat(justOpened.asked).hasValue(1);
    assertThat(moves.stayed()).isZero();
  }

  @Test
  void aStoppingMemberAsksEveryConnectionAndClosesOneThatOwnsNothingOnlyOnceItHasSettled() {
    Client settled = new Client();
    Client justOpened = new Client();
    AtomicInteger registeredOnTheNewOne = new AtomicInteger();
    moves.add(1, "settled", settled, () -> 0, null);
    time.advanceTimeBy(ConnectionMoves.SETTLE);
    moves.add(2, "just-opened", justOpened, registeredOnTheNewOne::get, null);

    AtomicReference<Integer> stillOpen = new AtomicReference<>();
    moves.moveAll(STOPPING, Duration.ofSeconds(5)).subscribe(stillOpen::set);
    assertThat(settled.asked).hasValue(1);
    assertThat(justOpened.asked).as("however new").hasValue(1);

    time.advanceTimeBy(Duration.ofMillis(20));
    assertThat(settled.isDisposed()).as("owns nothing: closed at the first look").isTrue();
    assertThat(justOpened.isDisposed()).as("owns nothing yet, but its client may still be registering").isFalse();

    // Its client's registration lands after all; it is then closed only once that is taken over.
    registeredOnTheNewOne.set(1);
    time.advanceTimeBy(ConnectionMoves.SETTLE);
    assertThat(justOpened.isDisposed()).as("owns an instance not yet taken over elsewhere").isFalse();
    registeredOnTheNewOne.set(0);
    time.advanceTimeBy(Duration.ofMillis(20));
    assertThat(justOpened.isDisposed()).isTrue();
    assertThat(stillOpen).hasValue(0);
  }
}
