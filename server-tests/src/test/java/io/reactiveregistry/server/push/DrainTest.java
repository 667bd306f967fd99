package io.reactiveregistry.server.push;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * The drain every stream that hands a backlog to its reader uses (service views, the audit trail,
 * the replication stream): demand, order and exactly-once under many producers, one hand-off
 * however often asked, on virtual time where it waits.
 */
class DrainTest {
  private static byte[] frame(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] frame) {
    return new String(frame, StandardCharsets.UTF_8);
  }

  /** A stream over a drain whose demand, when it arrives, drains at once. */
  private static Flux<String> stream(Drain drain) {
    return Flux.<byte[]>create(sink -> {
      drain.attach(sink);
      sink.onRequest(n -> drain.run());
    }).map(DrainTest::text);
  }

  @Test
  void emitsOnlyAsFarAsDemandReachesAndTheRestWhenAskedInOrder() {
    Queue<byte[]> backlog = new ConcurrentLinkedQueue<>(List.of(frame("a"), frame("b"), frame("c"), frame("d")));
    Drain drain = new Drain(backlog::poll);

    StepVerifier.create(stream(drain), 0)
        .thenRequest(2).expectNext("a", "b")
        .then(() -> assertThat(backlog).hasSize(2))
        .thenRequest(5).expectNext("c", "d")
        .then(() -> {
          backlog.add(frame("e"));
          drain.run();
        })
        .expectNext("e")
        .thenCancel().verify(Duration.ofSeconds(5));
  }

  @Test
  void manyProducersOnManyThreadsGetEveryFrameOutExactlyOnceAndEachInItsOrder() throws Exception {
    int producers = 8;
    int each = 20_000;
    Queue<byte[]> backlog = new ConcurrentLinkedQueue<>();
    Drain drain = new Drain(backlog::poll);
    Queue<String> received = new ConcurrentLinkedQueue<>();
    CountDownLatch all = new CountDownLatch(producers * each);
    stream(drain).subscribe(frame -> {
      received.add(frame);
      all.countDown();
    });
    ExecutorService loops = Executors.newFixedThreadPool(2);
    ExecutorService threads = Executors.newFixedThreadPool(producers);
    try {
      for (int p = 0; p < producers; p++) {
        int producer = p;
        threads.execute(() -> {
          for (int i = 0; i < each; i++) {
            backlog.add(frame(producer + ":" + i));
            if (producer % 2 == 0) {
              drain.run(); // on the producing thread
            } else {
              drain.handOff(loops); // handed off, as from under the registry's monitor
            }
          }
        });
      }
      assertThat(all.await(30, TimeUnit.SECONDS)).as("every frame out; %d of them", received.size()).isTrue();
    } finally {
      threads.shutdownNow();
      loops.shutdown();
      assertThat(loops.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(received).hasSize(producers * each).doesNotHaveDuplicates();
    Map<Integer, Integer> last = new ConcurrentHashMap<>();
    for (String frame : received) {
      int producer = Integer.parseInt(frame.substring(0, frame.indexOf(':')));
      int i = Integer.parseInt(frame.substring(frame.indexOf(':') + 1));
      assertThat(i).as("producer %d's frames in order", producer).isEqualTo(last.getOrDefault(producer, -1) + 1);
      last.put(producer, i);
    }
  }

  @Test
  void aFrameOfferedJustAsARunningDrainFoundNothingIsSentByThatDrain() {
    // The race made deterministic: the running drain looks, finds nothing, and before it ends a
    // producer adds a frame and asks for a drain (which sees one running and returns at once).
    Queue<byte[]> backlog = new ConcurrentLinkedQueue<>();
    Drain[] drain = new Drain[1];
    boolean[] raced = {false};
    drain[0] = new Drain(() -> {
      byte[] next = backlog.poll();
      if (next == null && !raced[0]) {
        raced[0] = true;
        backlog.add(frame("late"));
        drain[0].run();
      }
      return next;
    });
    List<String> received = new ArrayList<>();
    Flux.<byte[]>create(drain[0]::attach).map(DrainTest::text).subscribe(received::add); // drained only below

    drain[0].run();
    assertThat(raced[0]).isTrue();
    assertThat(received).as("sent by the drain that was running, not left for one that never comes")
        .containsExactly("late");
  }

  @Test
  void aHandOffIsOneTaskHoweverOftenItIsAskedForBeforeItRunsAndAnotherOnceItStarted() {
    ManualDrainLoop loop = new ManualDrainLoop();
    Queue<byte[]> backlog = new ConcurrentLinkedQueue<>();
    Drain drain = new Drain(backlog::poll);
    List<String> received = new ArrayList<>();
    stream(drain).subscribe(received::add);

    for (int i = 0; i < 100; i++) {
      backlog.add(frame("x" + i));
      drain.handOff(loop);
    }
    assertThat(loop.pending()).isEqualTo(1);
    assertThat(received).isEmpty();
    loop.runDue();
    assertThat(received).hasSize(100);

    backlog.add(frame("later"));
    drain.handOff(loop);
    assertThat(loop.pending()).isEqualTo(1);
    loop.runDue();
    assertThat(received).last().isEqualTo("later");
  }

  @Test
  void aDelayedHandOffDrainsWhenItFallsDueOnVirtualTime() {
    ManualDrainLoop loop = new ManualDrainLoop();
    Queue<byte[]> backlog = new ConcurrentLinkedQueue<>();
    Drain drain = new Drain(backlog::poll);
    List<String> received = new ArrayList<>();
    stream(drain).subscribe(received::add);

    backlog.add(frame("paced"));
    drain.handOff(loop, Duration.ofMillis(50).toNanos());
    drain.handOff(loop, 0); // already handed off: no second task
    loop.advance(Duration.ofMillis(49));
    assertThat(received).isEmpty();
    loop.advance(Duration.ofMillis(1));
    assertThat(received).containsExactly("paced");
    assertThat(loop.pending()).isZero();
  }

  @Test
  void aLoopThatRefusesTheHandOffLeavesTheDrainFreeForTheNextOne() {
    Queue<byte[]> backlog = new ConcurrentLinkedQueue<>(List.of(frame("kept")));
    Drain drain = new Drain(backlog::poll);
    List<String> received = new ArrayList<>();
    stream(drain).subscribe(received::add);

    drain.handOff(task -> {
      throw new RejectedExecutionException("the loop is shutting down");
    });
    ManualDrainLoop loop = new ManualDrainLoop();
    drain.handOff(loop);
    loop.runDue();
    assertThat(received).containsExactly("kept");
  }

  @Test
  void aCancelledStreamIsNotDrained() {
    Queue<byte[]> backlog = new ConcurrentLinkedQueue<>(List.of(frame("never")));
    Drain drain = new Drain(backlog::poll);
    stream(drain).take(0).subscribe();
    drain.run();
    assertThat(backlog).hasSize(1);
  }
}
